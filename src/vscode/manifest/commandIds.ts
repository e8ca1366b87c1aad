/** Every command id, as package.json `contributes.commands` declares them (a unit test checks the two agree). */
export const commandIds = {
    loadModel: "localResponses.loadModel",
    downloadModel: "localResponses.downloadModel",
    unloadModel: "localResponses.unloadModel",
    startServer: "localResponses.startServer",
    stopServer: "localResponses.stopServer",
    restartServer: "localResponses.restartServer",
    copyEndpoint: "localResponses.copyEndpoint",
    copyApiKey: "localResponses.copyApiKey",
    rotateApiKey: "localResponses.rotateApiKey",
    setUpstreamApiKey: "localResponses.setUpstreamApiKey",
    configureCodex: "localResponses.configureCodex",
    openInspector: "localResponses.openInspector",
    listResponses: "localResponses.listResponses",
    cancelJob: "localResponses.cancelJob",
    clearStore: "localResponses.clearStore",
    showLogs: "localResponses.showLogs",
    getStarted: "localResponses.getStarted",
    // The sidebar's item actions: they act on the row they are invoked on (hidden from the palette).
    sidebarLoadModel: "localResponses.sidebar.loadModel",
    sidebarRevealModel: "localResponses.sidebar.revealModel",
    sidebarDeleteModel: "localResponses.sidebar.deleteModel",
    sidebarForgetModel: "localResponses.sidebar.forgetModel",
    sidebarOpenResponse: "localResponses.sidebar.openResponse",
    sidebarDeleteResponse: "localResponses.sidebar.deleteResponse",
    sidebarOpenJob: "localResponses.sidebar.openJob",
    sidebarCancelJob: "localResponses.sidebar.cancelJob"
} as const;
