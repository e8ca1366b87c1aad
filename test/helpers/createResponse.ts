import type {ResponseObject} from "../../src/protocol/wire.js";
import type {ResponsesService} from "../../src/responses/ResponsesService.js";

/** prepare → admit → run, as the create route does without its stream: a finished response straight from the service. */
export async function createResponse(service: ResponsesService, owner: string, body: unknown): Promise<ResponseObject> {
    const prepared = service.prepare(owner, body);
    return (await service.run(await service.admit(prepared))).response;
}
