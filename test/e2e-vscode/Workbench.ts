import fs from "node:fs";
import path from "node:path";
import {chromium, type Browser, type FrameLocator, type Locator, type Page} from "playwright-core";

/** Drives the VS Code workbench in headless Chromium the way a person uses it: palette, status bar, panels. */
export class Workbench {
    private shot = 0;

    private constructor(private readonly browser: Browser, public readonly page: Page, private readonly artifacts: string) {}

    public static async open(url: string, artifacts: string): Promise<Workbench> {
        fs.mkdirSync(artifacts, {recursive: true});
        // A fresh temporary profile each launch (playwright's default).
        const browser = await chromium.launch({
            executablePath: "/usr/bin/chromium",
            headless: true,
            args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
        });
        const context = await browser.newContext({viewport: {width: 1400, height: 900}});
        // Copy API Key writes to the browser clipboard: a person pastes it, the test reads it back.
        await context.grantPermissions(["clipboard-read", "clipboard-write"], {origin: new URL(url).origin});
        const page = await context.newPage();
        await page.goto(url);
        await page.locator(".monaco-workbench").waitFor({timeout: 90_000});
        await page.locator(".part.statusbar").waitFor({timeout: 60_000});
        return new Workbench(browser, page, artifacts);
    }

    public async screenshot(name: string): Promise<string> {
        const file = path.join(this.artifacts, `${String(++this.shot).padStart(2, "0")}-${name}.png`);
        await this.page.screenshot({path: file});
        return file;
    }

    /** The extension's status bar item (its DOM id is `<publisher>.<name>.<item id>`). */
    public statusItem(): Locator {
        return this.page.locator(".part.statusbar [id='local-responses.local-responses.localResponses.status']");
    }

    public async statusText(): Promise<string> {
        return (await this.statusItem().innerText()).trim();
    }

    /** Waits until the status item's text matches. */
    public async waitForStatus(pattern: RegExp, timeoutMs = 120_000): Promise<string> {
        const deadline = Date.now() + timeoutMs;
        let text = "";
        while (Date.now() < deadline) {
            text = await this.statusText().catch(() => "");
            if (pattern.test(text))
                return text;
            await this.page.waitForTimeout(100);
        }
        await this.screenshot("status-timeout");
        throw new Error(`status bar never matched ${pattern}; last: '${text}'`);
    }

    /** Hovers the status item and reads its tooltip. */
    public async statusTooltip(): Promise<string> {
        await this.page.mouse.move(5, 5);
        await this.page.waitForTimeout(300);
        await this.statusItem().hover();
        const hover = this.page.locator(".workbench-hover, .monaco-hover").filter({hasText: "Tokens since start"}).first();
        await hover.waitFor({timeout: 10_000});
        const text = await hover.innerText();
        await this.page.mouse.move(5, 5);
        return text;
    }

    /** F1, type the command's title, pick it. */
    public async runCommand(title: string): Promise<void> {
        const input = this.page.locator(".quick-input-widget input.input");
        // Focus goes to the workbench's own DOM first, on the empty part of the activity bar, never into a webview: a
        // click on the inspector's iframe is reported to the workbench late, and when that focus event arrives after
        // the command's quick pick opened, VS Code closes the pick as blurred (seen in CI: the row went invisible).
        // F1 can still be swallowed while the workbench settles (seen in CI: the palette never opened): again.
        // The quick input is inert while its 150 ms close animation plays; once CI saw the palette opened over such a
        // closing widget stay inert for 30 s ("element is inert"), so F1 waits for the animation, and an inert
        // palette is closed and opened again.
        const closing = this.page.locator(".quick-input-widget.quick-input-widget-closing");
        for (let attempt = 1; ; attempt++) {
            await this.page.keyboard.press("Escape");
            await closing.waitFor({state: "detached", timeout: 5_000}).catch(() => undefined);
            await this.page.locator(".part.activitybar").click({position: {x: 24, y: 500}});
            await this.page.keyboard.press("F1");
            try {
                await input.waitFor({timeout: 10_000});
                await this.page.locator(".quick-input-widget:not([inert]) input.input").waitFor({timeout: 5_000});
                break;
            } catch (error) {
                await this.screenshot(`palette-not-ready-${attempt}`);
                if (attempt === 3)
                    throw error;
            }
        }
        await input.fill(`>${title}`);
        const row = this.page.locator(".quick-input-list .monaco-list-row").filter({hasText: title}).first();
        await row.waitFor({timeout: 15_000});
        // Enter runs the focused row: only once the filter put the command there (a recently used command can show
        // the title before the list is filtered); otherwise the row itself is clicked.
        const focused = this.page.locator(".quick-input-list .monaco-list-row.focused").filter({hasText: title});
        if (await focused.waitFor({timeout: 2_000}).then(() => true, () => false))
            await input.press("Enter");
        else
            await row.click();
    }

    /**
     * Runs a command that opens one quick input and answers it. A quick input that closed before the answer (blurred) is
     * opened again by running the command again, up to three times (CI saw it close twice in a row once): nothing happens
     * until the command's question is answered.
     */
    public async runCommandAndAnswer(title: string, value: string): Promise<void> {
        for (let attempt = 1; ; attempt++) {
            await this.runCommand(title);
            try {
                return await this.answerQuickInput(value);
            } catch (error) {
                if (!(error instanceof QuickInputClosed) || attempt === 4)
                    throw error;
                // Whatever took the focus (a toast, the editor opening) settles before the command runs again.
                await this.page.keyboard.press("Escape");
                await this.page.waitForTimeout(500);
            }
        }
    }

    /** Types into the quick input that a command opened (a path, a URI) once it is no longer the palette. */
    private async answerQuickInput(value: string, timeoutMs = 60_000): Promise<void> {
        const input = this.page.locator(".quick-input-widget input.input");
        const deadline = Date.now() + timeoutMs;
        while ((await input.inputValue().catch(() => ">")).startsWith(">")) {
            if (Date.now() > deadline) {
                await this.screenshot("quick-input-never-opened");
                throw new Error("the command's own quick input never replaced the palette");
            }
            await this.page.waitForTimeout(100);
        }
        // The input settles first: a file dialog fills in its folder a moment after it opens, which would
        // overwrite a value typed too early (seen in CI: the dialog kept its folder and the model never loaded).
        let last = await input.inputValue();
        let stableSince = Date.now();
        while (Date.now() - stableSince < 600 && Date.now() < deadline) {
            await this.page.waitForTimeout(100);
            const current = await input.inputValue();
            if (current !== last) {
                last = current;
                stableSince = Date.now();
            }
        }
        for (let attempt = 0; attempt < 5; attempt++) {
            // A pick that lost focus closes (seen in CI once: the input went invisible before the answer was typed).
            if (!await input.waitFor({state: "visible", timeout: 5_000}).then(() => true, () => false)) {
                await this.screenshot("quick-input-closed");
                throw new QuickInputClosed();
            }
            await input.fill(value, {timeout: 10_000});
            await this.page.waitForTimeout(300);
            if (await input.inputValue() === value)
                break;
        }
        await input.press("Enter");
    }

    /** A row of the quick pick a command opened (not the palette's), once it shows `text`. */
    public async quickPickRow(text: string | RegExp, timeoutMs = 15_000): Promise<Locator> {
        const input = this.page.locator(".quick-input-widget input.input");
        const deadline = Date.now() + timeoutMs;
        while ((await input.inputValue().catch(() => ">")).startsWith(">") && Date.now() < deadline)
            await this.page.waitForTimeout(100);
        const row = this.page.locator(".quick-input-widget .quick-input-list .monaco-list-row").filter({hasText: text}).first();
        await row.waitFor({timeout: Math.max(1000, deadline - Date.now())});
        return row;
    }

    /** Dismisses every notification, so the next step's toasts are the only ones on screen. */
    public async clearNotifications(): Promise<void> {
        await this.runCommand("Notifications: Clear All Notifications");
        await this.page.locator(".notifications-toasts .notification-toast").first().waitFor({state: "detached", timeout: 5_000})
            .catch(() => undefined);
    }

    /** A button of the notification that shows `text` (such as "Copy New Key" or a progress's "Cancel"). */
    public notificationButton(text: string | RegExp, label: string): Locator {
        return this.notification(text).locator(".monaco-button").filter({hasText: label}).first();
    }

    /** The modal dialog on screen (confirmations). */
    public dialog(): Locator {
        return this.page.locator(".monaco-dialog-box").first();
    }

    /** Developer: Reload Window, then waits for the workbench to come back. */
    public async reloadWindow(): Promise<void> {
        await this.afterReload(() => this.runCommand("Developer: Reload Window"));
    }

    /** Runs what reloads the window (the palette's command, a notification's button), then waits for the workbench. */
    public async afterReload(reload: () => Promise<void>): Promise<void> {
        const navigated = this.page.waitForEvent("framenavigated", {timeout: 30_000});
        await reload();
        await navigated;
        await this.page.locator(".monaco-workbench").waitFor({timeout: 90_000});
        await this.page.locator(".part.statusbar").waitFor({timeout: 60_000});
    }

    public async clipboard(): Promise<string> {
        return this.page.evaluate(() => navigator.clipboard.readText());
    }

    public notification(text: string | RegExp): Locator {
        return this.page.locator(".notifications-toasts .notification-toast").filter({hasText: text}).first();
    }

    /** A view of the sidebar by its title (Server, Models, …), expanded. */
    public async sidebarView(title: string): Promise<Locator> {
        const pane = this.page.locator(".part.sidebar .pane")
            .filter({has: this.page.locator(".pane-header", {hasText: new RegExp(`^${title}`, "i")})}).first();
        await pane.waitFor({timeout: 15_000});
        const header = pane.locator(".pane-header").first();
        if (await header.getAttribute("aria-expanded") === "false")
            await header.click();
        return pane;
    }

    /** The rows of a sidebar tree view that show `text`. */
    public treeRow(view: Locator, text: string | RegExp): Locator {
        return view.locator(".monaco-list-row").filter({hasText: text}).first();
    }

    /** The active webview's page (two nested iframes; chained, so a reload of the inner one is followed). */
    public webview(): FrameLocator {
        return this.page.frameLocator("iframe.webview.ready").frameLocator("iframe#active-frame");
    }

    /** Presses the primary button of a modal dialog (confirmations such as Delete). */
    public async confirmDialog(label: string): Promise<void> {
        const button = this.page.locator(".monaco-dialog-box .monaco-button").filter({hasText: label}).first();
        await button.waitFor({timeout: 10_000});
        await button.click();
    }

    public async close(): Promise<void> {
        await this.browser.close();
    }
}

/** The command's quick input closed before it was answered. */
export class QuickInputClosed extends Error {
    public constructor() {
        super("the command's quick input closed before it was answered");
    }
}
