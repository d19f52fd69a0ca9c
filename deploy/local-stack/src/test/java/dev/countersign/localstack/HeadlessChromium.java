package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Playwright;

/**
 * Chromium's headless shell for the browser tests, not the full browser in headless mode: the same engine at half the
 * CPU for these tests (45 against 98 CPU seconds, docs/testing.md). Debian's {@code chromium-headless-shell} package,
 * which .ci/run installs; Playwright downloads nothing.
 */
final class HeadlessChromium {

    static final Path EXECUTABLE = Path.of("/usr/bin/chromium-headless-shell");

    private HeadlessChromium() {
    }

    static Playwright playwright() {
        assertThat(EXECUTABLE).as(
                "Debian's chromium-headless-shell package (apt-get install chromium-headless-shell; .ci/run installs it)")
                .isExecutable();
        return Playwright
                .create(new Playwright.CreateOptions().setEnv(Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")));
    }

    static Browser launch(Playwright playwright) {
        return playwright.chromium().launch(new BrowserType.LaunchOptions()
                .setExecutablePath(EXECUTABLE)
                .setHeadless(true)
                // Without the background-networking flags Chromium keeps calling out of this closed network.
                .setArgs(List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync")));
    }
}
