// The scenario program: EmbeddedScenariosGTK3 (GTK 3) or EmbeddedScenariosGTK4 (GTK 4), the same
// scenarios over the provider of the target's toolkit.
#if WEBKITGTK_6
import EmbeddedWebviewProviderGTK4
#else
import EmbeddedWebviewProviderGTK3
#endif
import ScenarioSupport
import WebviewHost

WebviewProviderRegistry.register(EmbeddedWebviewProvider())
ScenarioHost.main(allScenarios, initializeToolkit: Toolkit.initialize)
