import {Router, type Request, type Response} from "express";
import type {CompletionsService} from "../../protocols/completions/CompletionsService.js";
import type {InfillService} from "../../protocols/infill/InfillService.js";
import {disconnectSignal} from "./foreground.js";
import {streamData, type RawStreamOptions} from "./rawStream.js";

/**
 * `POST /v1/completions` (OpenAI's text completions) and `POST /infill` (llama.cpp server's fill-in-the-middle, as
 * editors call it), mounted over their services: one JSON body, or a stream of `data:` lines.
 */
export function completionsRouter(services: {completions: CompletionsService, infill: InfillService},
    options: RawStreamOptions = {}): Router {
    const router = Router();

    router.post("/completions", rawHandler(services.completions, options));
    router.post("/infill", rawHandler(services.infill, options));
    return router;
}

/** What both raw services do: prepare a body, then answer it in one body or as a stream of `data:` lines. */
type RawService<Prepared extends {request: {stream: boolean}}> = {
    prepare(owner: string, body: unknown, signal: AbortSignal): Prepared,
    answer(prepared: Prepared): Promise<{body: unknown, usage: {input: number, output: number}}>,
    stream(prepared: Prepared, send: (data: unknown) => void): Promise<{input: number, output: number}>
};

function rawHandler<Prepared extends {request: {stream: boolean}}>(service: RawService<Prepared>, options: RawStreamOptions) {
    return async (req: Request, res: Response) => {
        const prepared = service.prepare(req.owner, req.body, disconnectSignal(res));
        if (prepared.request.stream)
            res.locals.usage = await streamData(options, res, (send) => service.stream(prepared, send));
        else
            answer(res, await service.answer(prepared));
    };
}

/** Sends the answer, counted in the request log. */
export function answer(res: Response, answered: {body: unknown, usage: {input: number, output: number}}): void {
    res.locals.usage = answered.usage;
    res.json(answered.body);
}
