/** The sidebar's tree views, as package.json `contributes.views` declares them (a unit test checks the two agree). */
export const sidebarViewIds = {
    server: "localResponses.server",
    models: "localResponses.models",
    responses: "localResponses.responses",
    jobs: "localResponses.jobs"
} as const;

/** Context keys the face sets on real events: the Server view's title menu reads it. */
export const contextKeys = {
    serverState: "localResponses.serverState"
} as const;

/** Context keys of the first-run walkthrough's steps (package.json `completionEvents: onContext:…`). */
export const walkthroughKeys = {
    hasModelFile: "localResponses.hasModelFile",
    modelLoaded: "localResponses.modelLoaded",
    clientConnected: "localResponses.clientConnected",
    sawResponseInInspector: "localResponses.sawResponseInInspector",
    servesSeveralModels: "localResponses.servesSeveralModels"
} as const;
