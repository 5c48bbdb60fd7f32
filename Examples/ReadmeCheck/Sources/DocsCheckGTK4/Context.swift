// The GTK 4 examples need nothing but the products they import (Generated.swift imports them itself).
import BuiltInWebviewProvidersGTK4
import WebviewHostGTK4
