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

    router.post("/completions", async (req: Request, res: Response) => {
        const {completions} = services;
        const prepared = completions.prepare(req.owner, req.body, disconnectSignal(res));
        if (prepared.request.stream)
            res.locals.usage = await streamData(options, res, (send) => completions.stream(prepared, send));
        else
            answer(res, await completions.answer(prepared));
    });

    router.post("/infill", async (req: Request, res: Response) => {
        const {infill} = services;
        const prepared = infill.prepare(req.owner, req.body, disconnectSignal(res));
        if (prepared.request.stream)
            res.locals.usage = await streamData(options, res, (send) => infill.stream(prepared, send));
        else
            answer(res, await infill.answer(prepared));
    });

    return router;
}

/** Sends the answer, counted in the request log. */
export function answer(res: Response, answered: {body: unknown, usage: {input: number, output: number}}): void {
    res.locals.usage = answered.usage;
    res.json(answered.body);
}
