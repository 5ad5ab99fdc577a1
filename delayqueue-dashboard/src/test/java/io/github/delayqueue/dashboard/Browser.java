package io.github.delayqueue.dashboard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.openqa.selenium.Alert;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Headless Chromium from the OS packages ({@code /usr/bin/chromium}, {@code /usr/bin/chromedriver}), named
 * explicitly so that Selenium never looks for (or downloads) a browser or a driver. Tests using it are skipped,
 * saying how to run them, where either is missing.
 */
final class Browser implements AutoCloseable {

    static final Path CHROMIUM = Path.of(System.getProperty("dashboard.chromium", "/usr/bin/chromium"));
    static final Path DRIVER = Path.of(System.getProperty("dashboard.chromedriver", "/usr/bin/chromedriver"));
    static final Path SCREENSHOTS = Path.of("target", "screenshots");
    static final Duration WAIT = Duration.ofSeconds(30);

    final ChromeDriver driver;
    final WebDriverWait wait;
    private final Path profile;

    private Browser(ChromeDriver driver, Path profile) {
        this.driver = driver;
        this.profile = profile;
        this.wait = new WebDriverWait(driver, WAIT);
        // the page re-renders itself every refresh: an element found a moment ago may be replaced
        this.wait.ignoring(StaleElementReferenceException.class);
    }

    static boolean installed() {
        return Files.isExecutable(CHROMIUM) && Files.isExecutable(DRIVER);
    }

    /**
     * Skips the calling test unless Chromium and its driver are installed, saying how to install them; under
     * {@code CI=true} (where {@code .ci/run} installs them) fails it instead, so that a browser test cannot pass
     * a build by not running.
     */
    static void assumeInstalled() {
        requireInstalled(installed(), System.getenv("CI"));
    }

    static void requireInstalled(boolean installed, @Nullable String ci) {
        String missing = CHROMIUM + " or " + DRIVER + " is missing. To run them, install Chromium and its driver "
                + "(Debian/Ubuntu: apt-get install -y chromium chromium-driver, as .ci/run does), or point "
                + "-Ddashboard.chromium and -Ddashboard.chromedriver at them.";
        if (!installed && "true".equalsIgnoreCase(ci)) {
            throw new AssertionError("Browser tests cannot run under CI=true: " + missing);
        }
        assumeTrue(installed, "Browser tests skipped: " + missing);
    }

    static Browser start() {
        assumeInstalled();
        Path profile;
        try {
            profile = Files.createTempDirectory("dq-chromium-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile())
                .usingAnyFreePort().build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--disable-extensions", "--window-size=1360,900", "--user-data-dir=" + profile.toAbsolutePath());
        return new Browser(new ChromeDriver(service, options), profile);
    }

    void open(String url) {
        this.driver.get(url);
    }

    /** The text of the first element matching, once there is one. */
    String textOf(By by) {
        return this.wait.until(d -> {
            List<WebElement> found = d.findElements(by);
            return found.isEmpty() ? null : found.get(0).getText();
        });
    }

    /** The attribute of every element matching, read in one go (retried if the page re-rendered meanwhile). */
    List<String> attributes(By by, String attribute) {
        return this.wait.until(d -> d.findElements(by).stream().map(e -> e.getDomAttribute(attribute)).toList());
    }

    void waitForText(By by, String text) {
        this.wait.until(d -> {
            List<WebElement> found = d.findElements(by);
            return !found.isEmpty() && found.get(0).getText().equals(text);
        });
    }

    void waitForTextContaining(By by, String text) {
        this.wait.until(d -> {
            List<WebElement> found = d.findElements(by);
            return !found.isEmpty() && found.get(0).getText().contains(text);
        });
    }

    void click(By by) {
        this.wait.until(d -> {
            List<WebElement> found = d.findElements(by);
            if (found.isEmpty() || !found.get(0).isDisplayed() || !found.get(0).isEnabled()) {
                return false;
            }
            found.get(0).click();
            return true;
        });
    }

    /** Answers the confirmation the page asks, returning its question. */
    String confirm(boolean accept) {
        Alert alert = this.wait.until(ExpectedConditions.alertIsPresent());
        String question = alert.getText();
        if (accept) {
            alert.accept();
        } else {
            alert.dismiss();
        }
        return question;
    }

    /** Saves what the browser shows under {@code target/screenshots/<name>.png}. */
    Path screenshot(String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            Path file = SCREENSHOTS.resolve(name + ".png");
            Files.copy(this.driver.getScreenshotAs(OutputType.FILE).toPath(), file, StandardCopyOption.REPLACE_EXISTING);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            this.driver.quit();
        } finally {
            try (Stream<Path> files = Files.walk(this.profile)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // a temporary profile left behind is harmless
            }
        }
    }
}
