// The GTK 3 examples need nothing but the products they import (Generated.swift imports them itself).
import BuiltInWebviewProvidersGTK3
import WebviewHostGTK3
