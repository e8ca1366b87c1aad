import {registerToolkit} from "./components/toolkit.js";
import {InspectorApp} from "./InspectorApp.js";

registerToolkit();
new InspectorApp(document.getElementById("app")!).start();
