package io.github.delayqueue.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Every relative link of README.md, CHANGELOG.md and docs/** leads somewhere: the file exists, and a {@code #fragment}
 * into a markdown page names one of its headings (as GitHub makes anchors of them) or an {@code <a id>}. Pages move
 * and headings change; a link that no longer resolves fails the build here rather than a reader's click.
 */
class DocLinksTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern FENCE = Pattern.compile("(?s)```.*?```");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6} (.+)$");
    private static final Pattern ID = Pattern.compile("<a id=\"([^\"]+)\"");

    private final Map<Path, Set<String>> anchors = new HashMap<>();

    @Test
    void everyRelativeLinkAndAnchorResolves() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CHANGELOG.md")));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<String> broken = new ArrayList<>();
        for (Path page : pages) {
            Matcher link = LINK.matcher(prose(page));
            while (link.find()) {
                String url = link.group(1);
                if (url.matches("^[a-z]+:.*")) {
                    continue; // http:, https:, mailto:
                }
                int hash = url.indexOf('#');
                String file = hash < 0 ? url : url.substring(0, hash);
                Path target = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                String where = ROOT.relativize(page) + ": " + url;
                if (!Files.exists(target)) {
                    broken.add(where + " (no such file)");
                } else if (hash >= 0 && target.toString().endsWith(".md")
                        && !anchorsOf(target).contains(url.substring(hash + 1))) {
                    broken.add(where + " (no such heading in " + ROOT.relativize(target) + ")");
                }
            }
        }
        assertThat(pages).hasSizeGreaterThan(10);
        assertThat(broken).isEmpty();
    }

    /** The page's text outside code fences. */
    private static String prose(Path page) {
        try {
            return FENCE.matcher(Files.readString(page)).replaceAll("");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** GitHub's anchors of a page's headings (lower case, punctuation dropped, spaces as '-', repeats numbered). */
    private Set<String> anchorsOf(Path page) {
        return anchors.computeIfAbsent(page, p -> {
            String text = prose(p);
            Set<String> found = new HashSet<>();
            Map<String, Integer> seen = new HashMap<>();
            Matcher heading = HEADING.matcher(text);
            while (heading.find()) {
                String anchor = heading.group(1).strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}_\\- ]", "")
                        .replace(' ', '-');
                int n = seen.merge(anchor, 1, Integer::sum);
                found.add(n == 1 ? anchor : anchor + "-" + (n - 1));
            }
            Matcher id = ID.matcher(text);
            while (id.find()) {
                found.add(id.group(1));
            }
            return found;
        });
    }
}
