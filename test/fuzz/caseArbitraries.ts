import fc from "fast-check";
import {compactBody, conversationBody, createBody, junkBody, mutated, type IdPool, type MutatedBody} from "./bodyArbitraries.js";
import {chatBody} from "./chatBodyArbitraries.js";

/**
 * One fuzz case: an HTTP request (odd paths, headers and bodies included), raw bytes written to a socket
 * (what Node's HTTP parser refuses before the app sees it), or a WebSocket session. Ids are placeholders
 * (`@@resp3@@`) that the runner resolves at run time against the objects that exist then.
 */
export type HttpCase = {
    kind: "http",
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
    /** Content-Encoding to send; `encode` says whether the body really is so encoded. */
    encoding?: {name: string, encode: boolean},
    /** Sent chunked instead of with a Content-Length. */
    chunked?: boolean,
    /** The client goes away after the first bytes of the answer (a stream cut mid-way). */
    disconnectEarly?: boolean,
    note?: string,
    /** The answer must be a 4xx: why. */
    expect4xx?: string,
    /** The answer must be a 4xx if the server reads the body as JSON: why. */
    bodyExpect4xx?: string
};
export type RawCase = {kind: "raw", request: string, note: string};
export type SocketMessageSpec = {text: string} | {binary: number[]};
export type SocketCase = {
    kind: "ws",
    path: string,
    headers: Record<string, string>,
    messages: SocketMessageSpec[],
    closeEarly: boolean,
    expect4xx?: string
};
export type FuzzCase = HttpCase | RawCase | SocketCase;

/** The fuzz key's own placeholder ids, and real ids that belong to another key (must stay out of reach). */
export function placeholderIds(foreign: IdPool): IdPool {
    const slots = (kind: string) => Array.from({length: 6}, (_, index) => `@@${kind}${index}@@`);
    return {
        responses: [...slots("resp"), ...foreign.responses],
        items: [...slots("item"), ...foreign.items],
        conversations: [...slots("conv"), ...foreign.conversations]
    };
}

const oddId = fc.oneof(
    fc.constantFrom("resp_does_not_exist", "%zz", "a%ff", "%c0%af", "%", "%00", "..", ".", "%2e%2e", "%2F", "resp_%2F..%2F", "null",
        "undefined",
        "__proto__", "constructor", "x".repeat(300), "caf%C3%A9", "%F0%9F%98%80", "a;b", "a,b", "*"),
    fc.string({minLength: 1, maxLength: 24}).map((text) => encodeURIComponent(text)),
    fc.webSegment()
);

function idOf(pool: string[]): fc.Arbitrary<string> {
    return fc.oneof({arbitrary: fc.constantFrom(...pool), weight: 4}, {arbitrary: oddId, weight: 2});
}

const query = fc.oneof(
    {arbitrary: fc.constant(""), weight: 6},
    {arbitrary: fc.record({
        limit: fc.constantFrom("1", "20", "100", "101", "0", "-1", "abc", "1e3", ""),
        order: fc.constantFrom("asc", "desc", "sideways"),
        after: fc.constantFrom("@@item0@@", "msg_nope", "%zz", ""),
        include: fc.constantFrom("reasoning.encrypted_content", "x", "[]"),
        stream: fc.constantFrom("true", "false", "1"),
        starting_after: fc.constantFrom("0", "3", "-1", "99999", "x", "1.5", "%zz")
    }, {requiredKeys: []}).map((params) => {
        const text = Object.entries(params).map(([key, value]) => `${key}=${value}`).join("&");
        return text === "" ? "" : `?${text}`;
    }), weight: 3},
    {arbitrary: fc.webQueryParameters().map((text) => `?${text}`), weight: 1},
    {
        arbitrary: fc.constantFrom("?limit=1&limit=2", "?stream[]=true", "?order[a]=b", "?%zz=1", "?&&&", "?" + "a=b&".repeat(2000)),
        weight: 1
    }
);

/** Which routes a generated request targets, each with the bodies it takes. */
function routeCase(ids: IdPool): fc.Arbitrary<{method: string, path: string, body?: MutatedBody}> {
    const resp = idOf(ids.responses);
    const conv = idOf(ids.conversations);
    const item = idOf(ids.items);
    const create = mutated(createBody(ids));
    const withBody = (method: string, path: fc.Arbitrary<string>, body: fc.Arbitrary<MutatedBody>) =>
        fc.tuple(path, body).map(([p, b]) => ({method, path: p, body: b}));
    const noBody = (method: string, path: fc.Arbitrary<string>) => path.map((p) => ({method, path: p}));
    return fc.oneof(
        {arbitrary: withBody("POST", fc.constant("/v1/responses"), create), weight: 14},
        {
            arbitrary: withBody("POST", fc.constant("/v1/responses"),
                create.map((b) => ({...b, text: b.text.replace(/^\{/, "{\"background\":true,")}))), weight: 2
        },
        {arbitrary: withBody("POST", fc.constant("/v1/responses/input_tokens"), create), weight: 3},
        {arbitrary: withBody("POST", fc.constant("/v1/chat/completions"), mutated(chatBody())), weight: 6},
        {
            arbitrary: withBody("POST", fc.constant("/v1/responses/compact"), mutated(compactBody(ids), {numbers: true, metadata: false})),
            weight: 3
        },
        {arbitrary: noBody("GET", fc.tuple(resp, query).map(([id, q]) => `/v1/responses/${id}${q}`)), weight: 3},
        {arbitrary: noBody("DELETE", resp.map((id) => `/v1/responses/${id}`)), weight: 1},
        {arbitrary: noBody("GET", fc.tuple(resp, query).map(([id, q]) => `/v1/responses/${id}/input_items${q}`)), weight: 2},
        {arbitrary: noBody("POST", resp.map((id) => `/v1/responses/${id}/cancel`)), weight: 2},
        {
            arbitrary: withBody("POST", fc.constant("/v1/conversations"),
                mutated(conversationBody(ids), {numbers: false, metadata: false})), weight: 3
        },
        {arbitrary: noBody("GET", conv.map((id) => `/v1/conversations/${id}`)), weight: 1},
        {
            arbitrary: withBody("POST", conv.map((id) => `/v1/conversations/${id}`),
                mutated(conversationBody(ids), {numbers: false, metadata: false})), weight: 1
        },
        {arbitrary: noBody("DELETE", conv.map((id) => `/v1/conversations/${id}`)), weight: 1},
        {arbitrary: noBody("GET", fc.tuple(conv, query).map(([id, q]) => `/v1/conversations/${id}/items${q}`)), weight: 1},
        {
            arbitrary: withBody("POST", conv.map((id) => `/v1/conversations/${id}/items`),
                mutated(conversationBody(ids), {numbers: false, metadata: false})), weight: 2
        },
        {arbitrary: noBody("GET", fc.tuple(conv, item).map(([c, i]) => `/v1/conversations/${c}/items/${i}`)), weight: 1},
        {arbitrary: noBody("DELETE", fc.tuple(conv, item).map(([c, i]) => `/v1/conversations/${c}/items/${i}`)), weight: 1},
        {
            arbitrary: noBody("GET", fc.constantFrom("/v1/models", "/v1/models/stories260K", "/v1/models/%zz", "/v1/status", "/status",
                "/metrics", "/v1/metrics")), weight: 2
        },
        {arbitrary: fc.tuple(fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"), oddPath,
            fc.option(junkBody, {nil: undefined}))
            .map(([method, path, text]) => ({method, path, body: text == null ? undefined : {text}})), weight: 3},
        {
            arbitrary: withBody("POST", fc.constantFrom("/v1/responses", "/v1/responses/compact", "/v1/responses/input_tokens",
                "/v1/conversations", "/v1/chat/completions"), junkBody.map((text) => ({text}))), weight: 3
        }
    );
}

const oddPath: fc.Arbitrary<string> = fc.oneof(
    fc.constantFrom("/", "/v1", "/v1/", "//v1//responses", "/V1/RESPONSES", "/v1/responses/", "/v1/responses/%zz/input_items",
        "/v1/responses/a%ff/cancel",
        "/v1/conversations/%c0%af/items/%", "/v1/./responses", "/v1/../v1/models", "/v1/responses/..%2f..%2fetc%2fpasswd",
        "/v1/chat/completions",
        "/v1/responses/x/y/z", "/%", "/v1/%00", "/v1/models/%zz", "/v1/responses/" + "a".repeat(5000), "/v1/responses?stream=true",
        "/v1/conversations/%E0%A4%A", "/favicon.ico", "/.env", "/v1/responses/%ED%A0%80"),
    fc.webPath().map((path) => path === "" ? "/" : path),
    fc.array(fc.oneof(fc.webSegment(), oddId), {minLength: 1, maxLength: 5}).map((segments) => `/v1/${segments.join("/")}`)
);

/** Host header values, with whether a loopback-only server must accept them. */
const hosts: ReadonlyArray<[string, boolean]> = [
    ["127.0.0.1", true], ["localhost", true], ["[::1]", true], ["LOCALHOST", true], ["127.0.0.2", true], ["app.localhost", true],
    ["evil.com", false], ["127.0.0.1.evil.com", false], ["[::1].evil", false], ["[::1]evil.com", false], ["localhost.evil.com", false],
    ["127.0.0.1:80:80", false], ["evil.com:127.0.0.1", false], ["[::1", false], ["", false], ["[", false]
];

/** Everything but the Host: auth in its forms, content types, origins, the odd extra header. */
function headersArbitrary(apiKey: string): fc.Arbitrary<{headers: Record<string, string>, expect4xx?: string}> {
    return fc.record({
        auth: fc.oneof(
            {arbitrary: fc.constant({authorization: `Bearer ${apiKey}`}), weight: 12},
            {arbitrary: fc.constant({"x-api-key": apiKey}), weight: 1},
            {arbitrary: fc.constantFrom({}, {authorization: "Bearer wrong"}, {authorization: `Basic ${apiKey}`},
                {authorization: `bearer ${apiKey}`},
                {authorization: `Bearer  ${apiKey}`}, {authorization: `Bearer ${apiKey} extra`}, {authorization: "Bearer"},
                {"x-api-key": ""}), weight: 2}
        ),
        host: fc.oneof({arbitrary: fc.constant(-1), weight: 12}, {arbitrary: fc.nat(hosts.length - 1), weight: 2}),
        port: fc.constantFrom("", ":8080", ":0", ":99999", ":abc"),
        contentType: fc.oneof(
            {arbitrary: fc.constant("application/json"), weight: 10},
            {arbitrary: fc.constantFrom(undefined, "text/plain", "application/json; charset=latin1", "application/json; charset=utf-16",
                "application/vnd.api+json",
                "multipart/form-data; boundary=x", "application/x-www-form-urlencoded", "application/json; charset=\"", "*/*",
                "application/JSON"), weight: 2}
        ),
        origin: fc.oneof({arbitrary: fc.constant(undefined), weight: 12}, {arbitrary: fc.constantFrom("http://evil.com", "null", "http://127.0.0.1:1234", "vscode-webview://abc", ""), weight: 1}),
        extra: fc.oneof({arbitrary: fc.constant({}), weight: 10}, {arbitrary: fc.constantFrom(
            {"x-http-method-override": "DELETE"}, {accept: "text/event-stream"}, {"accept-encoding": "gzip, br"},
            {"x-forwarded-host": "evil.com"},
            {"expect": "100-continue"}, {"x-long": "v".repeat(9000)}, {connection: "upgrade", upgrade: "websocket"},
            {"openai-beta": "responses=v1"},
            {"content-language": "xx"}, {range: "bytes=0-1"}, {"if-none-match": "*"}), weight: 2})
    }).map(({auth, host, port, contentType, origin, extra}) => {
        const headers: Record<string, string> = {...auth as Record<string, string>, ...extra as Record<string, string>};
        let expect4xx: string | undefined;
        if (host >= 0) {
            const [name, loopback] = hosts[host]!;
            const portOk = port !== ":abc";
            headers.host = name === "" ? "" : `${name}${port}`;
            if (!loopback)
                expect4xx = `Host '${headers.host}' is not a loopback name`;
            else if (!portOk)
                expect4xx = `Host '${headers.host}' has a malformed port`;
        }
        if (contentType != null)
            headers["content-type"] = contentType;
        if (origin != null)
            headers.origin = origin;
        return {headers, expect4xx};
    });
}

function httpCase(ids: IdPool, apiKey: string): fc.Arbitrary<HttpCase> {
    return fc.record({
        route: routeCase(ids),
        headers: headersArbitrary(apiKey),
        encoding: fc.oneof({arbitrary: fc.constant(undefined), weight: 14}, {
            arbitrary: fc.record({name: fc.constantFrom("gzip", "deflate", "br", "identity", "compress", "gzip, gzip", "x-junk"),
                encode: fc.boolean()}), weight: 2
        }),
        chunked: fc.oneof({arbitrary: fc.constant(false), weight: 5}, {arbitrary: fc.constant(true), weight: 1}),
        disconnectEarly: fc.oneof({arbitrary: fc.constant(false), weight: 8}, {arbitrary: fc.constant(true), weight: 1})
    }).map(({route, headers, encoding, chunked, disconnectEarly}) => {
        const expect4xx = headers.expect4xx;
        const bodyExpect4xx = route.body?.expect4xx;
        return {
            kind: "http" as const,
            method: route.method,
            path: route.path,
            headers: headers.headers,
            body: route.body?.text,
            encoding: route.body == null ? undefined : encoding,
            chunked,
            disconnectEarly,
            note: route.body?.note,
            ...(expect4xx == null ? {} : {expect4xx}),
            ...(bodyExpect4xx == null ? {} : {bodyExpect4xx})
        };
    });
}

/** Requests Node's HTTP parser judges before the app: each must still get an answer in OpenAI's shape. */
function rawCase(apiKey: string): fc.Arbitrary<RawCase> {
    const auth = `Authorization: Bearer ${apiKey}\r\n`;
    const body = "{\"model\":\"m\",\"input\":\"hi\",\"max_output_tokens\":2}";
    const templates: ReadonlyArray<[string, string]> = [
        ["space in the URL", `GET /v1/mo dels HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}\r\n`],
        ["'<' in the URL", `GET /v1/<script> HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}\r\n`],
        ["no Host on HTTP/1.1", `GET /v1/models HTTP/1.1\r\n${auth}\r\n`],
        [
            "bad Content-Length",
            `POST /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: application/json\r\nContent-Length: abc\r\n\r\n${body}`
        ],
        ["negative Content-Length", `POST /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Length: -5\r\n\r\n`],
        ["two Content-Lengths", `POST /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Length: 5\r\nContent-Length: 6\r\n\r\n`],
        [
            "Transfer-Encoding with Content-Length",
            `POST /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: `
                + `application/json\r\nContent-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body}`
        ],
        [
            "bad chunk size",
            `POST /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: `
                + `chunked\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`
        ],
        ["invalid header name", `GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Bad Header: x\r\n\r\n`],
        ["header over 16 KB", `GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}X-Big: ${"a".repeat(20_000)}\r\n\r\n`],
        ["URL over 16 KB", `GET /v1/models?${"a".repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}\r\n`],
        ["unknown method", `BREW /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}\r\n`],
        ["bad HTTP version", `GET /v1/models HTTP/9.9\r\nHost: 127.0.0.1\r\n${auth}\r\n`],
        ["NUL in a header value", `GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}X-A: a\u0000b\r\n\r\n`],
        ["HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"],
        ["TLS hello", "\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003"],
        ["absolute-form URL to another host", `GET http://evil.com/v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}\r\n`],
        ["HTTP/1.0 without Host", `GET /v1/models HTTP/1.0\r\n${auth}\r\n`],
        ["obsolete line folding", `GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}X-A: a\r\n b\r\n\r\n`],
        ["malformed percent-escape", `GET /v1/responses/%zz HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}\r\n`],
        [
            "WebSocket upgrade without Sec-WebSocket-Key",
            `GET /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Connection: Upgrade\r\nUpgrade: `
                + `websocket\r\nSec-WebSocket-Version: 13\r\n\r\n`
        ],
        [
            "WebSocket upgrade with version 99",
            `GET /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: `
                + `dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 99\r\n\r\n`
        ],
        [
            "WebSocket upgrade on POST",
            `POST /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: `
                + `dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nContent-Length: 0\r\n\r\n`
        ],
        [
            "empty body with Content-Length",
            `POST /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: application/json\r\nContent-Length: 0\r\n\r\n`
        ]
    ];
    return fc.oneof(
        {arbitrary: fc.constantFrom(...templates).map(([note, request]) => ({kind: "raw" as const, request, note})), weight: 4},
        {
            arbitrary: fc.string({minLength: 1, maxLength: 300, unit: "binary-ascii"})
                .map((junk) => ({kind: "raw" as const, request: `${junk}\r\n\r\n`, note: "junk bytes"})), weight: 1
        }
    );
}

function socketCase(ids: IdPool, apiKey: string): fc.Arbitrary<SocketCase> {
    const create = mutated(createBody(ids)).map((body) => ({text: body.text.replace(/^\{/, "{\"type\":\"response.create\",")}));
    const message: fc.Arbitrary<SocketMessageSpec> = fc.oneof(
        {arbitrary: create, weight: 8},
        {arbitrary: junkBody.map((text) => ({text})), weight: 2},
        {arbitrary: fc.constantFrom({text: "{\"type\":\"response.cancel\"}"},
            {text: "{\"type\":\"response.create\",\"background\":true,\"input\":\"x\"}"},
            {text: "{\"type\":\"response.create\",\"stream\":false,\"input\":\"x\"}"}, {text: "{\"input\":\"no type\"}"}), weight: 1},
        {arbitrary: fc.array(fc.nat(255), {maxLength: 32}).map((binary) => ({binary})), weight: 1}
    );
    return fc.record({
        path: fc.oneof({arbitrary: fc.constant("/v1/responses"), weight: 8}, {
            arbitrary: fc.constantFrom("/responses", "/v1/responses/", "/v1/models", "/v1/responses?x=%zz", "/%zz", "/v1/responses/%zz"),
            weight: 1
        }),
        auth: fc.oneof({arbitrary: fc.constant({authorization: `Bearer ${apiKey}`}), weight: 8}, {arbitrary: fc.constantFrom({}, {authorization: "Bearer wrong"}, {origin: "http://evil.com", authorization: `Bearer ${apiKey}`}), weight: 1}),
        messages: fc.array(message, {minLength: 1, maxLength: 4}),
        closeEarly: fc.oneof({arbitrary: fc.constant(false), weight: 5}, {arbitrary: fc.constant(true), weight: 1})
    }).map(
        ({path, auth, messages, closeEarly}) => ({kind: "ws" as const, path, headers: auth as Record<string, string>, messages, closeEarly})
    );
}

/** The whole mix: mostly HTTP, a share of raw parser-level requests and WebSocket sessions. */
export function fuzzCase(ids: IdPool, apiKey: string): fc.Arbitrary<FuzzCase> {
    return fc.oneof(
        {arbitrary: httpCase(ids, apiKey), weight: 16},
        {arbitrary: rawCase(apiKey), weight: 2},
        {arbitrary: socketCase(ids, apiKey), weight: 3}
    );
}
