package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// chromium returns the path of a Chromium to run headless, or skips the
// test when there is none (outside CI, which installs Debian's chromium:
// see .ci/run). Under CI a missing browser fails, so that a broken install
// does not pass as a skip.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium not found, and CI is set: .ci/run installs it with apt-get install -y chromium")
	}
	t.Skip("chromium not found: install it (Debian: apt-get install -y chromium) to render the report in a headless browser")
	return ""
}

// errorProbe, placed first in the head, records every script error; the
// probe at the end of the body writes them into the DOM, where
// --dump-dom shows them.
const (
	errorProbe = `<script>window.__errors = []; window.addEventListener("error", function (e) { window.__errors.push(String(e.message)); });</script>`
	errorDump  = `<script>document.body.setAttribute("data-errors", JSON.stringify(window.__errors));</script>`
)

// render writes page to a file, opens it in headless Chromium and returns
// the DOM after its scripts ran.
func render(t *testing.T, page string) *html.Node {
	exe := chromium(t)
	// The first <head> is the page's; the inlined ECharts holds the text
	// "</body>", so the page's is the last.
	page = strings.Replace(page, "<head>", "<head>\n"+errorProbe, 1)
	end := strings.LastIndex(page, "</body>")
	page = page[:end] + errorDump + "\n" + page[end:]
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	require.NoError(t, os.WriteFile(file, []byte(page), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1200,900", "--virtual-time-budget=5000",
		"--dump-dom", "file://"+file)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "chromium: %s", stderr.String())
	doc, err := html.Parse(&stdout)
	require.NoError(t, err)
	return doc
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// find returns the nodes under n for which match holds, in document order.
func find(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	if match(n) {
		out = append(out, n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		out = append(out, find(c, match)...)
	}
	return out
}

func element(tag string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Type == html.ElementNode && n.Data == tag }
}

// TestBrowser_Renders opens the sample report in headless Chromium and
// checks the rendered DOM's structure, not its pixels: no script error,
// every chart container holds a canvas ECharts drew at the container's
// size, and the tables have their rows.
func TestBrowser_Renders(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, Write(&out, sample()))
	doc := render(t, out.String())

	bodies := find(doc, element("body"))
	require.Len(t, bodies, 1)
	require.Equal(t, "[]", attr(bodies[0], "data-errors"), "script errors in the page")

	charts := find(doc, func(n *html.Node) bool { return n.Type == html.ElementNode && attr(n, "class") == "chart" })
	var ids []string
	for _, c := range charts {
		ids = append(ids, attr(c, "id"))
		require.NotEmpty(t, attr(c, "_echarts_instance_"), "chart %s: ECharts did not start on it", attr(c, "id"))
		canvases := find(c, element("canvas"))
		require.NotEmpty(t, canvases, "chart %s has no canvas", attr(c, "id"))
		w, err := strconv.Atoi(attr(canvases[0], "width"))
		require.NoError(t, err)
		require.Greater(t, w, 100, "chart %s: canvas width", attr(c, "id"))
	}
	require.Equal(t, []string{"utilization", "delay-cdf", "occupancy", "policy-0", "policy-1"}, ids)

	rows := func(id string) [][]string {
		tables := find(doc, func(n *html.Node) bool { return n.Type == html.ElementNode && attr(n, "id") == id })
		require.Len(t, tables, 1)
		var out [][]string
		for _, tr := range find(tables[0], element("tr")) {
			var cells []string
			for _, td := range find(tr, func(n *html.Node) bool { return n.Type == html.ElementNode && (n.Data == "td" || n.Data == "th") }) {
				cells = append(cells, text(td))
			}
			out = append(out, cells)
		}
		return out
	}
	require.Equal(t, [][]string{
		{"group size", "started", "never started", "p50", "p90", "p99", "max"},
		{"1 pod", "4", "0", "10s", "2m0s", "2m0s", "2m0s"},
		{"2–8 pods", "2", "2", "30s", "5m0s", "5m0s", "5m0s"},
		{"9+ pods", "0", "1", "–", "–", "–", "–"},
	}, rows("delay-table"))
	require.Equal(t, [][]string{
		{"policy", "GPUs unallocated (GPUs)", "mean delay (s)"},
		{"MostAllocated", "290", "41.5"},
		{"BestFit", "312", "38.25"},
	}, rows("policy-table"))
}

func text(n *html.Node) string {
	var b strings.Builder
	for _, t := range find(n, func(n *html.Node) bool { return n.Type == html.TextNode }) {
		b.WriteString(t.Data)
	}
	return strings.TrimSpace(b.String())
}

// TestBrowser_SeesErrors: the probe that TestBrowser_Renders relies on
// reports a script error, so an empty list there means none happened.
func TestBrowser_SeesErrors(t *testing.T) {
	doc := render(t, "<!DOCTYPE html>\n<html><head></head><body><script>noSuchFunction();</script></body></html>")
	bodies := find(doc, element("body"))
	require.Len(t, bodies, 1)
	require.Contains(t, attr(bodies[0], "data-errors"), "noSuchFunction")
}
