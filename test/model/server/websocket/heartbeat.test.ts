import assert from "node:assert/strict";
import net from "node:net";
import {describe, it} from "node:test";
import {SocketClient} from "../../../helpers/socketClient.js";
import {type TestServer, useTestServer} from "../../../helpers/testServer.js";

const intervalMs = 300;

/** A WebSocket peer written by hand over TCP, to send what no WebSocket library would (half a frame, no pongs). */
class RawPeer {
    public pings = 0;
    public readonly messages: string[] = [];
    public closedAt: number | null = null;
    private buffer = Buffer.alloc(0);
    private upgraded = false;

    private constructor(private readonly socket: net.Socket, private readonly answerPings: boolean) {
        socket.on("data", (chunk) => this.read(chunk));
        socket.on("close", () => {
            this.closedAt = performance.now();
        });
    }

    public static async open(server: TestServer, answerPings: boolean): Promise<RawPeer> {
        const url = new URL(server.origin);
        const socket = net.connect(Number(url.port), url.hostname);
        await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
        const peer = new RawPeer(socket, answerPings);
        socket.write([
            "GET /v1/responses HTTP/1.1", `Host: ${url.host}`, "Upgrade: websocket", "Connection: Upgrade",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13", `Authorization: Bearer ${server.apiKey}`, "", ""
        ].join("\r\n"));
        for (let waited = 0; !peer.upgraded; waited += 10) {
            assert.ok(waited < 5000 && peer.closedAt == null, "no 101 Switching Protocols");
            await new Promise((resolve) => setTimeout(resolve, 10));
        }
        return peer;
    }

    public get open(): boolean {
        return this.closedAt == null;
    }

    /** A masked client frame (the mask is zero: the payload goes as is). */
    public frame(opcode: number, payload: Buffer, declaredLength = payload.length): Buffer {
        assert.ok(declaredLength < 126);
        return Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | declaredLength, 0, 0, 0, 0]), payload]);
    }

    public write(bytes: Buffer): void {
        this.socket.write(bytes);
    }

    public destroy(): void {
        this.socket.destroy();
    }

    private read(chunk: Buffer): void {
        this.buffer = Buffer.concat([this.buffer, chunk]);
        if (!this.upgraded) {
            const end = this.buffer.indexOf("\r\n\r\n");
            if (end < 0)
                return;
            assert.match(this.buffer.subarray(0, end).toString(), /^HTTP\/1\.1 101 /);
            this.upgraded = true;
            this.buffer = this.buffer.subarray(end + 4);
        }
        // Server frames are unmasked: a 7-bit length, or 126/127 then a 16/64-bit one.
        for (;;) {
            if (this.buffer.length < 2)
                return;
            const short = this.buffer[1]! & 0x7f;
            const header = short === 126 ? 4 : short === 127 ? 10 : 2;
            if (this.buffer.length < header)
                return;
            const length = short === 126 ? this.buffer.readUInt16BE(2) : short === 127 ? Number(this.buffer.readBigUInt64BE(2)) : short;
            if (this.buffer.length < header + length)
                return;
            const opcode = this.buffer[0]! & 0x0f;
            const payload = this.buffer.subarray(header, header + length);
            this.buffer = this.buffer.subarray(header + length);
            if (opcode === 0x1)
                this.messages.push(payload.toString());
            if (opcode === 0x9) {
                this.pings++;
                if (this.answerPings)
                    this.write(this.frame(0xA, payload));
            }
        }
    }
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<number> {
    const started = performance.now();
    while (!condition()) {
        if (performance.now() - started > timeoutMs)
            return Number.POSITIVE_INFINITY;
        await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return performance.now() - started;
}

describe("WebSocket heartbeat (pings, pong deadline, half-frame peers)", () => {
    const server = useTestServer({streamKeepAliveSeconds: intervalMs / 1000});

    it("pings every interval; a client that answers stays connected through a long silence and runs turns", async () => {
        const client = await SocketClient.open(`${server.origin.replace(/^http/, "ws")}/v1/responses`,
            {authorization: `Bearer ${server.apiKey}`});
        try {
            let pings = 0;
            client.ws.on("ping", () => pings++);
            await new Promise((resolve) => setTimeout(resolve, intervalMs * 5));
            assert.ok(pings >= 3, `${pings} pings in ${intervalMs * 5} ms`);
            const messages = await client.turn({model: "m", input: "Once upon a time", max_output_tokens: 8});
            assert.ok(["response.completed", "response.incomplete"].includes(messages.at(-1)!.type));
        } finally {
            await client.close();
        }
    });

    it("terminates a peer that answers no ping, and keeps a raw peer that answers them", async () => {
        const silent = await RawPeer.open(server, false);
        const answering = await RawPeer.open(server, true);
        try {
            const closedAfter = await waitFor(() => !silent.open, intervalMs * 10);
            assert.ok(closedAfter <= intervalMs * 4, `the silent peer was cut after ${Math.round(closedAfter)} ms`);
            assert.ok(silent.pings >= 1, "it was pinged first");
            await new Promise((resolve) => setTimeout(resolve, intervalMs * 3));
            assert.ok(answering.open, "a peer that answers every ping stays");
            assert.ok(answering.pings >= 3);
        } finally {
            silent.destroy();
            answering.destroy();
        }
    });

    it("closes a peer that stopped mid-frame, although it tries to answer pings", async () => {
        const peer = await RawPeer.open(server, true);
        const whole = await RawPeer.open(server, true);
        try {
            // A text frame that declares 100 bytes and carries 10: its pongs are read as the rest of that frame.
            peer.write(peer.frame(0x1, Buffer.from('{"type":"r'), 100));
            // The same bytes completed later by a peer that does not stall are a message like any other.
            whole.write(whole.frame(0x1, Buffer.from("0123456789"), 100).subarray(0, 16));
            await new Promise((resolve) => setTimeout(resolve, 50));
            whole.write(Buffer.alloc(90, 0x20));
            const closedAfter = await waitFor(() => !peer.open, intervalMs * 10);
            assert.ok(closedAfter <= intervalMs * 4, `the half-frame peer was cut after ${Math.round(closedAfter)} ms`);
            assert.ok(peer.pings >= 1);
            await new Promise((resolve) => setTimeout(resolve, intervalMs * 2));
            assert.ok(whole.open, "a peer that finished its frame stays connected");
            assert.equal(JSON.parse(whole.messages[0]!).error.code, "invalid_json", "and its message was read (and answered)");
        } finally {
            peer.destroy();
            whole.destroy();
        }
    });
});
