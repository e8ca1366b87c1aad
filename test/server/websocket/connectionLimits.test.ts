import assert from "node:assert/strict";
import http from "node:http";
import {after, before, describe, it} from "node:test";
import express from "express";
import {defaultConfig} from "../../../src/host/config.js";
import {LocalResponsesHost} from "../../../src/host/LocalResponsesHost.js";
import type {ResponsesService} from "../../../src/responses/ResponsesService.js";
import {HttpServer} from "../../../src/server/HttpServer.js";
import {ResponsesWebSocketServer, type WebSocketServerOptions} from "../../../src/server/websocket/ResponsesWebSocketServer.js";
import {defaultSocketLimits} from "../../../src/server/websocket/socketLimits.js";
import {SocketClient} from "../../helpers/socketClient.js";

type Refusal = Error & {status: number, body: {error: {type: string, code: string, message: string}}};

/** Opens a socket expected to be refused, and returns the refusal (the handshake's HTTP status and body). */
async function refused(url: string, key: string): Promise<Refusal> {
    const error = await SocketClient.open(url, {authorization: `Bearer ${key}`}).then((client) => {
        void client.close();
        assert.fail("the handshake was accepted");
    }, (reason: unknown) => reason as Refusal);
    return error;
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
    for (const started = Date.now(); !condition(); await new Promise((resolve) => setTimeout(resolve, 5)))
        assert.ok(Date.now() - started < 5000, what);
}

/**
 * A service whose turns wait until the test lets them through, each counted as it starts: what a connection holds
 * while a turn runs can be filled without a model.
 */
class GatedService {
    public prepared = 0;
    public finished = 0;
    private release: () => void = () => undefined;
    private readonly gate = new Promise<void>((resolve) => {
        this.release = resolve;
    });

    public prepare(): object {
        this.prepared++;
        return {params: {store: true}, history: []};
    }

    public async admit(): Promise<object> {
        await this.gate;
        return {};
    }

    public async run(): Promise<object> {
        this.finished++;
        return {status: "completed"};
    }

    public open(): void {
        this.release();
    }
}

/** The WebSocket server on an HTTP server on loopback, with the given options and a service that runs no model. */
async function startSocketServer(options: Partial<WebSocketServerOptions>, service: object = new GatedService()) {
    const sockets = new ResponsesWebSocketServer({responses: service as ResponsesService, apiKeys: () => ["sk-a", "sk-b"], ...options});
    const server = new HttpServer(express(), sockets);
    const {url} = await server.listen("127.0.0.1", 0);
    return {sockets, url: url.replace(/^http/, "ws") + "/responses", close: () => server.close(100)};
}

describe("WebSocket connection caps", () => {
    it("refuses a connection past the total cap with 429 in OpenAI's error shape, and takes one again once another closes", async () => {
        const server = await startSocketServer({maxConnections: 3, maxConnectionsPerOwner: 3});
        const open: SocketClient[] = [];
        try {
            open.push(await SocketClient.open(server.url, {authorization: "Bearer sk-a"}));
            open.push(await SocketClient.open(server.url, {authorization: "Bearer sk-b"}));
            open.push(await SocketClient.open(server.url, {authorization: "Bearer sk-b"}));
            const refusal = await refused(server.url, "sk-a");
            assert.equal(refusal.status, 429);
            assert.equal(refusal.body.error.type, "rate_limit_error");
            assert.equal(refusal.body.error.code, "rate_limit_exceeded");
            assert.match(refusal.body.error.message, /3 WebSocket connections are already open \(limit 3\)/);
            assert.equal(server.sockets.openConnections, 3);
            await open.shift()!.close();
            await waitFor(() => server.sockets.openConnections === 2, "the closed connection gave its slot back");
            open.push(await SocketClient.open(server.url, {authorization: "Bearer sk-a"}));
        } finally {
            await Promise.all(open.map((client) => client.close()));
            await server.close();
        }
    });

    it("refuses one key past its own cap while another key's connections keep working", async () => {
        const server = await startSocketServer({maxConnections: 10, maxConnectionsPerOwner: 2});
        const open: SocketClient[] = [];
        try {
            open.push(await SocketClient.open(server.url, {authorization: "Bearer sk-a"}));
            open.push(await SocketClient.open(server.url, {authorization: "Bearer sk-a"}));
            const refusal = await refused(server.url, "sk-a");
            assert.equal(refusal.status, 429);
            assert.match(refusal.body.error.message, /This API key already has 2 WebSocket connections open \(limit 2\)/);
            const other = await SocketClient.open(server.url, {authorization: "Bearer sk-b"});
            open.push(other);
            // The other key's connection serves turns (this one is refused by the schema, which proves it is read).
            const [answer] = await other.turn({stream: false});
            assert.equal(answer!.type, "error");
            assert.equal(answer!.status, 400);
            assert.equal(open[0]!.ws.readyState, open[0]!.ws.OPEN, "the refused handshake left the key's open connections alone");
        } finally {
            await Promise.all(open.map((client) => client.close()));
            await server.close();
        }
    });

    it("a refused or failed handshake holds no slot", async () => {
        const server = await startSocketServer({maxConnections: 1});
        try {
            await refused(server.url, "sk-wrong");
            const status = await new Promise<number | undefined>((resolve, reject) => {
                const headers = {upgrade: "websocket", connection: "Upgrade", authorization: "Bearer sk-a"};
                const request = http.get(server.url.replace(/^ws/, "http"), {headers});
                request.once("response", (response) => {
                    response.resume();
                    resolve(response.statusCode);
                }).once("error", reject);
            });
            assert.equal(status, 400, "no Sec-WebSocket-Key: ws refuses the handshake after the slot was taken");
            await waitFor(() => server.sockets.openConnections === 0, "the slot of the handshake ws refused was given back");
            const client = await SocketClient.open(server.url, {authorization: "Bearer sk-a"});
            await client.close();
        } finally {
            await server.close();
        }
    });
});

describe("WebSocket bytes held per connection", () => {
    const message = (size: number) => JSON.stringify({type: "response.create", input: "x".repeat(size)});

    it("refuses a message that would pass the bound while a turn runs, takes smaller ones, and always takes one alone", async () => {
        const service = new GatedService();
        const server = await startSocketServer({maxQueuedBytes: 1000}, service);
        const client = await SocketClient.open(server.url, {authorization: "Bearer sk-a"});
        try {
            client.send(message(1500)); // alone: taken although larger than the bound
            await waitFor(() => service.prepared === 1, "the first turn started");
            client.send(message(600));
            const [refusal] = await client.readTurn(5000);
            assert.equal(refusal!.type, "error");
            assert.equal(refusal!.status, 429);
            assert.equal(refusal!.error.code, "rate_limit_exceeded");
            assert.match(refusal!.error.message, /already take \d+ bytes, and this one \d+ more \(limit 1000\)/);
            service.open();
            await waitFor(() => service.finished === 1, "the first turn ended");
            // The held bytes were given back with the turn: the same message is taken now.
            client.send(message(600));
            await waitFor(() => service.prepared === 2, "the message was taken once nothing was held");
        } finally {
            await client.close();
            await server.close();
        }
    });

    it("takes small messages behind a running turn up to the bound", async () => {
        const service = new GatedService();
        const server = await startSocketServer({maxQueuedBytes: 1000}, service);
        const client = await SocketClient.open(server.url, {authorization: "Bearer sk-a"});
        try {
            client.send(message(300));
            client.send(message(300));
            client.send(message(300));
            const [refusal] = await client.readTurn(5000);
            assert.equal(refusal!.status, 429, "the third message passes 1000 bytes");
            service.open();
            await waitFor(() => service.prepared === 2, "both messages within the bound ran");
        } finally {
            await client.close();
            await server.close();
        }
    });
});

describe("WebSocket caps on the real server (no model)", () => {
    let host: LocalResponsesHost;
    let url: string;
    before(async () => {
        host = new LocalResponsesHost({...defaultConfig(), port: 0, apiKeys: ["sk-a", "sk-b"]});
        url = (await host.start()).replace(/^http/, "ws") + "/responses";
    });
    after(() => host.dispose());

    it("applies the default per-key cap: one key's connection past it is refused, another key still connects", async () => {
        const open: SocketClient[] = [];
        try {
            for (let index = 0; index < defaultSocketLimits.maxConnectionsPerOwner; index++)
                open.push(await SocketClient.open(url, {authorization: "Bearer sk-a"}));
            const refusal = await refused(url, "sk-a");
            assert.equal(refusal.status, 429);
            assert.equal(refusal.body.error.code, "rate_limit_exceeded");
            open.push(await SocketClient.open(url, {authorization: "Bearer sk-b"}));
        } finally {
            await Promise.all(open.map((client) => client.close()));
        }
    });
});
