// Development harness for webauthn-page.js and webauthn-relay.js in a real WebKitGTK 6.0 view.
//
//   xvfb-run -a gjs -m Tests/Fixtures/WebAuthn/harness/harness.js
//
// Injects both scripts as the library does (the page script in the top frame's page world, the
// relay in the top frame's isolated world "webviewhost-webauthn", with the message handler
// "webviewhostWebAuthn" registered there with replies), answers the relay with a fake native side,
// serves pages/ from `python3 -m http.server` on 127.0.0.1 (loopback http is a secure context),
// and loads each page: the pages run their own checks and write them into <pre id="results">,
// read here from a third world. The fake native side checks what reached it (origins, aborts,
// user activation). Exits 1 if any check failed. Needs python3, and xdotool for the click test.
//
// The fake native reads the challenge as text to choose its answer:
//   "ok", "ok-nohandle", "activation-*", ... a credential (clientDataJSON echoes the origin and
//      userActivation the relay sent); "delay": the same after 200 ms; "hang": no answer until an
//      abort for that id, then a late credential (which the page script must ignore);
//   "error:NAME": {ok: false, error: {name: NAME, message: "fake NAME"}};
//   "reject:TEXT": the reply rejected (return_error_message); "garbage": a reply that is not JSON;
//   "incomplete": a credential without its members.
import GLib from "gi://GLib";
import Gio from "gi://Gio";
import Gtk from "gi://Gtk?version=4.0";
import WebKit from "gi://WebKit?version=6.0";
import JavaScriptCore from "gi://JavaScriptCore?version=6.0";
import System from "system";

const here = GLib.path_get_dirname(GLib.filename_from_uri(import.meta.url)[0]);
const pagesDir = GLib.build_filenamev([here, "pages"]);
const sources = GLib.build_filenamev([here, "..", "..", "..", "..", "Sources", "EmbeddedWebviewShared", "WebAuthn"]);
const read = (path) => new TextDecoder().decode(GLib.file_get_contents(path)[1]);
const WORLD = "webviewhost-webauthn", HANDLER = "webviewhostWebAuthn", READER_WORLD = "webviewhost-harness";

// ---- small helpers ------------------------------------------------------------------------
const sleep = (ms) => new Promise((resolve) => GLib.timeout_add(GLib.PRIORITY_DEFAULT, ms, () => { resolve(); return GLib.SOURCE_REMOVE; }));
const utf8 = (text) => new TextEncoder().encode(text);
const b64u = (bytes) => GLib.base64_encode(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const fromB64u = (text) => GLib.base64_decode(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
const range = (n, f) => Uint8Array.from({ length: n }, (_, i) => f(i));
let passed = 0, failed = 0;
function report(ok, name, info) {
  if (ok) { passed++; } else { failed++; }
  print(`${ok ? "PASS" : "FAIL"}  ${name}${info ? "  -- " + info : ""}`);
}

// ---- the fake native side -----------------------------------------------------------------
// Reply values are made in the context of the message's value: a JavaScriptCore.Context of our
// own in this (UI) process stalls WebKit's loads in 2.50 (seen: no load-changed ever arrives).
const received = []; // every message the relay posted, parsed
const hanging = new Map(); // id -> { reply, message }

function credential(message, command) {
  const o = message.options, ext = o.extensions || {};
  const clientData = { type: "webauthn." + message.kind, challenge: o.challenge, origin: message.origin, crossOrigin: false,
    userActivation: message.userActivation };
  const rawId = message.kind === "get" && o.allowCredentials && o.allowCredentials.length ? o.allowCredentials[0].id : b64u(range(17, (i) => 200 + i));
  const common = { clientDataJSON: b64u(utf8(JSON.stringify(clientData))), authenticatorData: b64u(range(37, (i) => (i * 7) & 255)) };
  const response = message.kind === "create"
    ? { ...common, attestationObject: b64u(range(256, (i) => i)), publicKey: b64u(range(91, (i) => (i * 3 + 1) & 255)), publicKeyAlgorithm: -7, transports: ["usb"] }
    : { ...common, signature: b64u(range(70, (i) => 255 - i)), userHandle: command === "ok-nohandle" ? null : b64u(utf8("user-1234")) };
  const results = {};
  if (message.kind === "create" && ext.credProps) { results.credProps = { rk: true }; }
  if (message.kind === "get" && ext.prf) { results.prf = { results: { first: b64u(range(32, (i) => i + 100)) } }; }
  return { ok: true, credential: { id: rawId, rawId, type: "public-key", authenticatorAttachment: "cross-platform", response, clientExtensionResults: results } };
}

const answer = (reply, value) => reply.return_value(JavaScriptCore.Value.new_string(reply.context, JSON.stringify(value)));

function fakeNative(text, reply) {
  let message;
  try { message = JSON.parse(text); } catch (e) { reply.return_error_message("not JSON"); return; }
  received.push(message);
  if (message.kind === "abort") {
    answer(reply, { ok: true });
    const held = hanging.get(message.id);
    if (held) { hanging.delete(message.id); sleep(100).then(() => answer(held.reply, credential(held.message, "ok"))); }
    return;
  }
  const command = new TextDecoder().decode(fromB64u(message.options.challenge));
  if (command === "hang") { hanging.set(message.id, { reply, message }); return; }
  if (command === "delay") { sleep(200).then(() => answer(reply, credential(message, command))); return; }
  if (command.startsWith("error:")) { const name = command.slice(6); answer(reply, { ok: false, error: { name, message: "fake " + name } }); return; }
  if (command.startsWith("reject:")) { reply.return_error_message(command.slice(7)); return; }
  if (command === "garbage") { reply.return_value(JavaScriptCore.Value.new_string(reply.context, "not json {")); return; }
  if (command === "incomplete") { answer(reply, { ok: true, credential: { type: "public-key" } }); return; }
  answer(reply, credential(message, command));
}

// ---- the view -----------------------------------------------------------------------------
Gtk.init();
const manager = new WebKit.UserContentManager();
manager.add_script(WebKit.UserScript.new(read(GLib.build_filenamev([sources, "webauthn-page.js"])),
  WebKit.UserContentInjectedFrames.TOP_FRAME, WebKit.UserScriptInjectionTime.START, null, null));
manager.add_script(WebKit.UserScript.new_for_world(read(GLib.build_filenamev([sources, "webauthn-relay.js"])),
  WebKit.UserContentInjectedFrames.TOP_FRAME, WebKit.UserScriptInjectionTime.START, WORLD, null, null));
// Harness only: records, in the relay's world, what every request event's detail looks like there.
manager.add_script(WebKit.UserScript.new_for_world(`window.__harnessSpy = [];
  document.addEventListener("webviewhost-webauthn-request", (e) => {
    const d = e.detail;
    let value, realm = "";
    try { value = typeof d === "string" ? d.slice(0, 60) : JSON.stringify(d).slice(0, 60); } catch (x) { value = "unreadable: " + x; }
    if (d !== null && typeof d === "object") {
      realm = Object.getPrototypeOf(d) === Object.prototype ? "a copy made in this world" : "an object of another world";
    }
    window.__harnessSpy.push({ type: d === null ? "null" : typeof d, realm, value });
  }, true);`, WebKit.UserContentInjectedFrames.TOP_FRAME, WebKit.UserScriptInjectionTime.START, WORLD, null, null));
manager.connect(`script-message-with-reply-received::${HANDLER}`, (_manager, value, reply) => {
  reply.context = value.get_context();
  fakeNative(value.to_string(), reply);
  return true; // the reply is kept (held for "hang" and "delay") and answered later
});
if (!manager.register_script_message_handler_with_reply(HANDLER, WORLD)) { throw new Error("could not register the handler"); }

const view = new WebKit.WebView({ user_content_manager: manager, network_session: WebKit.NetworkSession.new_ephemeral() });
view.get_settings().enable_write_console_messages_to_stdout = true;
const window = new Gtk.Window({ default_width: 800, default_height: 600, title: "WebAuthn harness" });
window.set_child(view);
window.present();

function evaluate(script, world) {
  return new Promise((resolve, reject) => {
    sleep(5000).then(() => reject(new Error("evaluate_javascript timed out")));
    view.evaluate_javascript(script, -1, world, null, null, (_view, result) => {
      try { resolve(view.evaluate_javascript_finish(result).to_string()); } catch (e) { reject(e); }
    });
  });
}
const readResults = () => evaluate(`(() => { const d = document.documentElement;
  return d && d.dataset.done === "1" ? document.getElementById("results").textContent : (d && d.dataset.ready === "1" ? "ready" : ""); })()`, READER_WORLD);

// Loads a page, waits for its results and reports them. onReady is called on every poll while
// <html data-ready="1"> and no results yet: it decides itself whether to act again.
async function runPage(name, load, onReady) {
  print(`\n== ${name}`);
  const first = received.length;
  // Wait for the new document to be committed: until then the previous page's results are there.
  const committed = new Promise((resolve) => {
    const id = view.connect("load-changed", (_view, event) => {
      if (event === WebKit.LoadEvent.COMMITTED) { view.disconnect(id); resolve(); }
    });
  });
  load();
  await Promise.race([committed, sleep(10000)]);
  let text = "";
  const deadline = GLib.get_monotonic_time() + 20e6;
  while (GLib.get_monotonic_time() < deadline) {
    await sleep(100);
    try { text = await readResults(); } catch (e) { text = ""; }
    if (text === "ready") {
      if (onReady) { await onReady(); }
      continue;
    }
    if (text) { break; }
  }
  if (!text || text === "ready") { report(false, `${name}: page finished`, "timed out"); return received.slice(first); }
  for (const r of JSON.parse(text)) { report(r.ok, r.name, r.info); }
  return received.slice(first);
}

function startServer() {
  const server = Gio.Subprocess.new(["/usr/bin/python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", pagesDir],
    Gio.SubprocessFlags.STDOUT_PIPE | Gio.SubprocessFlags.STDERR_SILENCE);
  const lines = new Gio.DataInputStream({ base_stream: server.get_stdout_pipe() });
  return new Promise((resolve, reject) => {
    lines.read_line_async(GLib.PRIORITY_DEFAULT, null, (_s, result) => {
      const [line] = lines.read_line_finish_utf8(result);
      const match = /port (\d+)/.exec(line || "");
      if (match) { resolve({ server, port: Number(match[1]) }); } else { reject(new Error("http.server said: " + line)); }
    });
  });
}

function spawn(argv) {
  const process = Gio.Subprocess.new(argv, Gio.SubprocessFlags.NONE);
  return new Promise((resolve) => process.wait_async(null, () => resolve(process.get_exit_status())));
}

// The native side's own checks on what a page's run sent it.
function nativeChecks(name, messages, origin) {
  const requests = messages.filter((m) => m.kind !== "abort");
  const wrong = messages.filter((m) => m.origin !== origin);
  report(wrong.length === 0, `${name}: native got origin ${origin} on every message (${messages.length})`, wrong.map((m) => m.origin).join(", "));
  const shapes = requests.filter((m) => !(typeof m.id === "string" && (m.kind === "create" || m.kind === "get") && typeof m.options === "object" &&
    typeof m.options.challenge === "string" && "userActivation" in m));
  report(shapes.length === 0, `${name}: every native request has id, kind, options.challenge, origin, userActivation`, JSON.stringify(shapes[0]));
  return requests;
}
const challengeOf = (m) => (m.options ? new TextDecoder().decode(fromB64u(m.options.challenge)) : "");

// HARNESS_ONLY=abort runs only the sections whose name contains "abort".
const only = GLib.getenv("HARNESS_ONLY");
const selected = (name) => !only || name.includes(only);

// Each section loads its page(s), then checks what reached the fake native side.
const sections = {
  async api(base) { nativeChecks("api", await runPage("api.html", () => view.load_uri(`${base}/api.html`)), base); },
  async roundtrip(base) { nativeChecks("roundtrip", await runPage("roundtrip.html", () => view.load_uri(`${base}/roundtrip.html`)), base); },
  async overrides(base) { nativeChecks("overrides", await runPage("overrides.html", () => view.load_uri(`${base}/overrides.html`)), base); },

  async abort(base) {
    const messages = await runPage("abort.html", () => view.load_uri(`${base}/abort.html`));
    nativeChecks("abort", messages, base);
    const hangs = messages.filter((m) => m.kind !== "abort" && challengeOf(m) === "hang").map((m) => m.id);
    const aborts = messages.filter((m) => m.kind === "abort").map((m) => m.id);
    report(hangs.length === 3 && aborts.length === 3 && hangs.every((id) => aborts.includes(id)),
      "abort: native got an abort for each call aborted while pending (create, get, AbortSignal.timeout), and no other", JSON.stringify({ hangs, aborts }));
    report(messages.length > 0 && challengeOf(messages[0]) === "hang", "abort: nothing reached native for the already-aborted signals");
  },

  async forged(base) {
    const messages = await runPage("forged.html", () => view.load_uri(`${base}/forged.html`));
    nativeChecks("forged", messages, base);
    const forged = messages.find((m) => m.id === "forged-origin-1");
    report(forged && forged.origin === base && forged.userActivation === false,
      "forged: the request claiming another origin reached native with the real origin and activation", JSON.stringify(forged && [forged.origin, forged.userActivation]));
    report(!messages.some((m) => ["forged-object", "forged-badid", "forged-kind"].includes(challengeOf(m)) || m.id === "forged-noopts-1"),
      "forged: object details, bad ids, unknown kinds and missing options never reached native");
    const spy = JSON.parse(await evaluate("JSON.stringify(window.__harnessSpy || [])", WORLD));
    const object = spy.find((s) => s.type !== "string");
    print(`INFO  request events seen in the relay's world: ${spy.map((s) => s.type).join(", ")}`);
    print(`INFO  an object detail from the page world reads there as: ${object ? `${object.type}, ${object.realm}, ${object.value}` : "(not seen)"}`);
  },

  async frames(base, port) {
    const messages = await runPage("frames.html", () => view.load_uri(`${base}/frames.html`));
    nativeChecks("frames", messages, base);
    report(!messages.some((m) => /^from-frame/.test(m.id)), "frames: requests dispatched inside frames never reached native (no relay there)");
  },

  async activation(base) {
    // A click once the page drew its button (the window is at 0,0 on Xvfb, no window manager,
    // and the button fills it), and another 4 s later while the page still waits (its handler ran
    // after WebKit's 5 s activation had lapsed on a loaded machine, see activation.html): 3 clicks at most.
    let clicked = null, clicks = 0, lastClick = 0;
    const messages = await runPage("activation.html", () => view.load_uri(`${base}/activation.html`), async () => {
      if (clicks >= 3 || (clicks > 0 && GLib.get_monotonic_time() - lastClick < 4e6)) { return; }
      clicks += 1;
      lastClick = GLib.get_monotonic_time();
      clicked = await spawn(["xdotool", "mousemove", "400", "300", "click", "1"]).catch((e) => String(e));
      if (clicks > 1) { print(`INFO  activation: clicked again (${clicks})`); }
    });
    report(clicked === 0, "activation: xdotool clicked the page's button", String(clicked));
    nativeChecks("activation", messages, base);
    const timer = messages.find((m) => challengeOf(m) === "activation-timer"), click = messages.find((m) => challengeOf(m) === "activation-click");
    report(timer && timer.userActivation === false, "activation: native got userActivation false from a timer", JSON.stringify(timer && timer.userActivation));
    report(click && click.userActivation === true, "activation: native got userActivation true from a click handler", JSON.stringify(click && click.userActivation));
  },

  // load_html() with a base URI gives the document that URL and origin without any network, so
  // a non-loopback http host (not a secure context) and an https one can be tried here.
  async contexts(base, port) {
    const html = read(GLib.build_filenamev([pagesDir, "contexts.html"])).replace("/* COMMON */", () => read(GLib.build_filenamev([pagesDir, "common.js"])));
    for (const uri of ["http://example.test/", "https://example.test/", `http://localhost:${port}/`, `${base}/`]) {
      const messages = await runPage(`contexts.html as ${uri}`, () => view.load_html(html, uri));
      if (uri === "http://example.test/") { report(messages.length === 0, "contexts http://example.test/: nothing reached native"); }
      else { nativeChecks(`contexts ${uri}`, messages, uri.replace(/\/$/, "")); }
    }
  },
};

async function main() {
  print(`WebKitGTK ${WebKit.get_major_version()}.${WebKit.get_minor_version()}.${WebKit.get_micro_version()}`);
  const { server, port } = await startServer();
  try {
    for (const [name, section] of Object.entries(sections)) {
      if (selected(name)) { await section(`http://127.0.0.1:${port}`, port); }
    }
  } finally {
    server.force_exit();
  }
  print(`\n${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

const loop = new GLib.MainLoop(null, false);
let status = 1;
main().then((code) => { status = code; }, (e) => { print(`harness error: ${e}\n${e.stack}`); }).finally(() => loop.quit());
loop.run();
System.exit(status);
