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
    configureCodex: "localResponses.configureCodex",
    openInspector: "localResponses.openInspector",
    listResponses: "localResponses.listResponses",
    cancelJob: "localResponses.cancelJob",
    clearStore: "localResponses.clearStore",
    showLogs: "localResponses.showLogs"
} as const;
