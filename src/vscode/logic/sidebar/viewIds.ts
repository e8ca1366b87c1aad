/** The sidebar's tree views, as package.json `contributes.views` declares them (a unit test checks the two agree). */
export const sidebarViewIds = {
    server: "localResponses.server",
    models: "localResponses.models",
    responses: "localResponses.responses",
    jobs: "localResponses.jobs"
} as const;

/** Context keys the face sets on real events: menus and the walkthrough's steps read them. */
export const contextKeys = {
    serverState: "localResponses.serverState",
    modelLoaded: "localResponses.modelLoaded"
} as const;
