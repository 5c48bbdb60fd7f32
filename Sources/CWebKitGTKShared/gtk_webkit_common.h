// The helpers GTK 3 + WebKitGTK 4.1 and GTK 4 + WebKitGTK 6.0 share: the same C names mean the
// same thing in both. Included by the shim of each toolkit module (CWebKitGTK3, CWebKitGTK4),
// after that toolkit's own headers; not a module of its own.
//
// Swift cannot import C macros that cast or call. Each helper below stands for one macro
// (named in its comment), so Swift code never casts GObject pointers by hand.
#ifndef WEBVIEWHOST_GTK_WEBKIT_COMMON_H
#define WEBVIEWHOST_GTK_WEBKIT_COMMON_H

// MARK: Casts (GTK_WIDGET, GTK_WINDOW, WEBKIT_WEB_VIEW ...)
static inline GtkWidget *wvh_widget(gpointer p) { return GTK_WIDGET(p); }
static inline GtkWindow *wvh_window(gpointer p) { return GTK_WINDOW(p); }
static inline GtkBox *wvh_box(gpointer p) { return GTK_BOX(p); }
static inline GtkOverlay *wvh_overlay(gpointer p) { return GTK_OVERLAY(p); }
static inline GtkSpinner *wvh_spinner(gpointer p) { return GTK_SPINNER(p); }
static inline GtkLabel *wvh_label(gpointer p) { return GTK_LABEL(p); }
static inline GtkHeaderBar *wvh_header_bar(gpointer p) { return GTK_HEADER_BAR(p); }
static inline GtkDialog *wvh_dialog(gpointer p) { return GTK_DIALOG(p); }
static inline GtkButton *wvh_button(gpointer p) { return GTK_BUTTON(p); }
static inline WebKitWebView *wvh_web_view(gpointer p) { return WEBKIT_WEB_VIEW(p); }
static inline WebKitNavigationPolicyDecision *wvh_navigation_policy_decision(gpointer p) {
    return WEBKIT_NAVIGATION_POLICY_DECISION(p);
}
static inline WebKitPolicyDecision *wvh_policy_decision(gpointer p) { return WEBKIT_POLICY_DECISION(p); }
static inline WebKitResponsePolicyDecision *wvh_response_policy_decision(gpointer p) {
    return WEBKIT_RESPONSE_POLICY_DECISION(p);
}

// MARK: Type checks (GTK_IS_WINDOW, WEBKIT_IS_WEB_VIEW)
static inline gboolean wvh_is_window(gpointer p) { return p != NULL && GTK_IS_WINDOW(p); }
static inline gboolean wvh_is_web_view(gpointer p) { return p != NULL && WEBKIT_IS_WEB_VIEW(p); }

// MARK: GDK_CURRENT_TIME
static inline guint32 wvh_gdk_current_time(void) { return GDK_CURRENT_TIME; }

// MARK: The foreign-scheme question (GtkMessageDialog: deprecated in GTK 4.10, still there)
// gtk_message_dialog_new is variadic: a question with no buttons yet, modal over `parent`,
// whose primary text is `text` taken literally (never as a format).
// Its client-side titlebar (Wayland, and GNOME's dialogs on X11) is drawn without the title: a
// GtkMessageDialog shows the window's title there, which is the primary text again, the same words
// twice. The title stays the window's name for task switchers and screen readers.
static inline GtkWidget *wvh_question_dialog_new(GtkWindow *parent, const char *text) {
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    GtkWidget *dialog = gtk_message_dialog_new(parent, GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT, GTK_MESSAGE_QUESTION,
                                               GTK_BUTTONS_NONE, "%s", text);
    G_GNUC_END_IGNORE_DEPRECATIONS
    GtkWidget *titlebar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
    gtk_widget_set_size_request(titlebar, -1, 16);  // GtkMessageDialog's own titlebar height, untitled
#if GTK_MAJOR_VERSION >= 4
    gtk_widget_add_css_class(titlebar, "titlebar");
#else
    gtk_style_context_add_class(gtk_widget_get_style_context(titlebar), "titlebar");
    gtk_widget_show(titlebar);
#endif
    gtk_window_set_titlebar(GTK_WINDOW(dialog), titlebar);
    return dialog;
}
// gtk_message_dialog_format_secondary_text is variadic: `text` taken literally.
static inline void wvh_message_dialog_set_secondary_text(GtkWidget *dialog, const char *text) {
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(dialog), "%s", text);
    G_GNUC_END_IGNORE_DEPRECATIONS
}
// The box under a question's texts (deprecated with GtkMessageDialog in GTK 4.10): where the
// certificate chooser puts its list and the PIN dialog its field.
static inline GtkWidget *wvh_message_dialog_get_message_area(GtkWidget *dialog) {
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    return gtk_message_dialog_get_message_area(GTK_MESSAGE_DIALOG(dialog));
    G_GNUC_END_IGNORE_DEPRECATIONS
}
// gtk_dialog_response, deprecated with GtkDialog in GTK 4.10.
static inline void wvh_dialog_respond(GtkWidget *dialog, gint response) {
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    gtk_dialog_response(GTK_DIALOG(dialog), response);
    G_GNUC_END_IGNORE_DEPRECATIONS
}
static inline GtkListBox *wvh_list_box(gpointer p) { return GTK_LIST_BOX(p); }
static inline GtkEntry *wvh_entry(gpointer p) { return GTK_ENTRY(p); }

#endif
