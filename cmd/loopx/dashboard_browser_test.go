package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/loopx-dev/loopx/internal/testproject"
)

// browser starts one headless Chromium for a test (chromedp), or skips
// when none is installed and CI is not set; as root (CI) it runs without
// Chromium's own sandbox, which root cannot use.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := ""
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("the dashboard's browser test needs Chromium under CI (apt-get install chromium)")
		}
		t.Skip("no Chromium on PATH (apt-get install chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path),
		chromedp.WindowSize(1280, 800), chromedp.UserDataDir(t.TempDir()))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTime(); cancel(); cancelAlloc() })
	return ctx
}

// page drives one browser tab; each step fails the test with what the
// page said.
type page struct {
	t   *testing.T
	ctx context.Context
	dir string
}

func (p page) fail(what string, err error) {
	p.t.Helper()
	if buf, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100)); err == nil {
		_ = os.WriteFile(filepath.Join(p.dir, "dashboard-failed.png"), buf, 0o644)
	}
	rc, _ := chromedp.Run(p.ctx, chromedp.Text(chromedp.CSS(`#receipt`)))
	p.t.Fatalf("%s: %v (the page's receipt: %q)", what, err, rc)
}

func (p page) do(steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, steps...); err != nil {
		p.fail("browser", err)
	}
}

func (p page) text(sel string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		p.fail("text of "+sel, err)
	}
	return s
}

// poll waits (up to 20 s) until the expression is true in the page.
func (p page) poll(js string) {
	p.t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		p.fail("waiting for "+js, err)
	}
}

// click clicks the element sel names once it is there (up to 20 s),
// finding and clicking it in one evaluation: the page re-renders its
// lanes and cards as the stream reports changes, so a node one call finds
// can be gone by the next.
func (p page) click(sel string) {
	p.t.Helper()
	q, _ := json.Marshal(sel)
	p.poll(`(() => { const el = document.querySelector(` + string(q) + `); if (!el) return false; el.click(); return true })()`)
}

// shot saves a full-page screenshot as dashboard-NAME.png.
func (p page) shot(name string) {
	p.t.Helper()
	buf, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err == nil {
		err = os.WriteFile(filepath.Join(p.dir, "dashboard-"+name+".png"), buf, 0o644)
	}
	if err != nil {
		p.fail("screenshot "+name, err)
	}
}

// scheme makes the page prefer a light or dark colour scheme.
func (p page) scheme(s string) {
	p.t.Helper()
	if _, err := chromedp.Call(p.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: s}}}); err != nil {
		p.fail("colour scheme", err)
	}
}

// artefacts is where the browser test saves its screenshots:
// $LOOPX_TEST_ARTEFACTS, else a directory of the test's.
func artefacts(t *testing.T) string {
	if d := os.Getenv("LOOPX_TEST_ARTEFACTS"); d != "" {
		_ = os.MkdirAll(d, 0o755)
		return d
	}
	return t.TempDir()
}

// TestDashboard_Browser: a human opens the dashboard with the link loopx
// dashboard prints, sees the gate an agent raised and the agent's lane
// waiting on them, answers it on the page (previewed, confirmed, a
// receipt), and watches the lane move while the agent's next decide says
// run; then adopts a loosening rule change (typing "adopt" on the page),
// pauses the goal and marks it reviewed. Without the link the page shows nothing. Screenshots
// (wide and narrow, light and dark) are saved as artefacts.
func TestDashboard_Browser(t *testing.T) {
	t.Parallel() // its own project; it waits on the processes it starts
	if testing.Short() {
		t.Skip("starts a server and a browser")
	}
	ctx := browser(t)
	sp := newServedProject(t)
	sp.run(t, "", nil, "todo", "add", "--goal", "g1", "Write the migration guide")
	raise := exec.Command("sh", "-c", `loopx gate raise --goal g1 --question "Should the release go out on Friday?" --json`)
	raise.Dir = sp.p.Root
	raise.Env = append(append(os.Environ(), sp.p.Env()...), "LOOPX_NOW="+testproject.EpochText, "LOOPX_AGENT=a1")
	out, err := raise.Output()
	var gate struct {
		ID       string `json:"id"`
		RaisedBy string `json:"raised_by"`
	}
	if err := json.Unmarshal(out, &gate); err != nil || gate.RaisedBy != "a1" {
		t.Fatalf("the agent's gate raise: %v %s (%+v)", err, out, gate)
	}
	verdict := func() string {
		r := sp.run(t, "", nil, "decide", "should-run", "--goal", "g1", "--agent", "a1", "--json")
		var d struct{ Verdict string }
		_ = json.Unmarshal([]byte(r.stdout), &d)
		return d.Verdict
	}
	if v := verdict(); v != "wait_human" {
		t.Fatalf("before the answer a1's decide says %s, want wait_human", v)
	}

	sp.startServer(t, "--addr", "127.0.0.1:0")
	r := sp.run(t, "", nil, "dashboard", "--no-open", "--json")
	var link struct {
		URL       string    `json:"url"`
		ExpiresAt time.Time `json:"expires_at"`
		ServerPID int       `json:"server_pid"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &link); err != nil || !strings.Contains(link.URL, "/login?code=") || link.ServerPID == 0 {
		t.Fatalf("loopx dashboard --no-open --json: exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	base := link.URL[:strings.Index(link.URL, "/login")]

	// Without the link's session the page shows nothing of the project.
	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	body := make([]byte, 1<<16)
	n, _ := resp.Body.Read(body)
	resp.Body.Close()
	if resp.StatusCode != 401 || strings.Contains(string(body[:n]), "Friday") || strings.Contains(string(body[:n]), "csrf-token") {
		t.Fatalf("the page without a session: %d\n%s", resp.StatusCode, body[:n])
	}

	dir := artefacts(t)
	b := page{t: t, ctx: ctx, dir: dir}
	gateSel := fmt.Sprintf(`[data-gate=%q]`, gate.ID)
	b.do(chromedp.Navigate(link.URL), chromedp.WaitVisible(chromedp.CSS(gateSel)))
	question := b.text(gateSel + " h4")
	b.poll(`!!document.querySelector('[data-lane="needs you"] [data-goal="g1"] [data-agent="a1"][data-verdict="wait_human"]')`)
	// Each verdict links to its explanation.
	b.click(`[data-goal="g1"] [data-agent="a1"] [data-explain]`)
	b.poll(`document.getElementById('explain-body').textContent.includes('rule data.loopx.run.gates')`)
	b.shot("wide-light")
	b.click(gateSel + ` button[data-option="approve"]`)
	b.do(chromedp.WaitVisible(chromedp.CSS(`#confirm-ok`)))
	preview := b.text(`#confirm-preview`)
	b.do(chromedp.Click(chromedp.CSS(`#confirm-ok`)))
	b.poll(`document.getElementById('receipt').textContent.startsWith('Done')`)
	b.poll(`!document.querySelector('` + gateSel + `')`)
	b.poll(`!!document.querySelector('[data-goal="g1"] [data-agent="a1"][data-verdict="run"]')`)
	if question != "Should the release go out on Friday?" || !strings.HasPrefix(preview, "The gate decision: allow") {
		t.Errorf("the card said %q, the preview %q", question, preview)
	}
	if v := verdict(); v != "run" {
		t.Errorf("after the answer a1's decide says %s, want run", v)
	}
	r = sp.run(t, "", nil, "gate", "show", gate.ID, "--json")
	if !strings.Contains(r.stdout, `"option": "approve"`) || !strings.Contains(r.stdout, `"by": "human"`) {
		t.Errorf("the answer as recorded:\n%s", r.stdout)
	}
	if r := sp.run(t, "", nil, "events", "--kind", "gate.answered", "--json"); !strings.Contains(r.stdout, `"channel": "dashboard"`) || !strings.Contains(r.stdout, `"actor": "human"`) {
		t.Errorf("the answer's event is not the human's on the dashboard:\n%s", r.stdout)
	}

	// A loosening rule change waits for the human: adopted on the page
	// after typing "adopt".
	spec := filepath.Join(sp.p.Root, "loopx", "loopx.cue")
	src, _ := os.ReadFile(spec)
	if err := os.WriteFile(spec, []byte(strings.Replace(string(src), "rounds: 100", "rounds: 200", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	b.poll(`!!document.getElementById('rules-pending')`)
	b.click(`[data-action="adopt"]`)
	b.do(chromedp.WaitVisible(chromedp.CSS(`#confirm-typed`)),
		chromedp.SendKeys(chromedp.CSS(`#confirm-typed`), "adopt"), chromedp.Click(chromedp.CSS(`#confirm-ok`)))
	b.poll(`document.getElementById('receipt').textContent.startsWith('Done: adopt')`)
	b.poll(`!document.getElementById('rules-pending')`)
	b.click(`[data-goal="g1"] [data-action="goal.pause"]`)
	b.do(chromedp.WaitVisible(chromedp.CSS(`#confirm-ok`)), chromedp.Click(chromedp.CSS(`#confirm-ok`)))
	b.poll(`document.getElementById('receipt').textContent.startsWith('Done: pause')`)
	b.poll(`!!document.querySelector('[data-goal="g1"] [data-action="goal.resume"]')`)
	b.click(`[data-action="review.mark"]`)
	b.poll(`document.getElementById('confirm').open`)
	b.do(chromedp.Click(chromedp.CSS(`#confirm-ok`)))
	b.poll(`document.getElementById('receipt').textContent.startsWith('Done: mark')`)
	b.shot("wide-light-after")
	b.scheme("dark")
	b.shot("wide-dark")
	b.do(chromedp.EmulateViewport(390, 844))
	b.shot("narrow-dark")
	b.scheme("light")
	b.shot("narrow-light")
	if r := sp.run(t, "", nil, "status", "--json"); strings.Contains(r.stdout, "rules_pending") {
		t.Errorf("after the adoption status still says rules are pending:\n%s", r.stdout)
	}
	if r := sp.run(t, "", nil, "goal", "show", "g1", "--json"); !strings.Contains(r.stdout, `"paused"`) {
		t.Errorf("the goal after the page paused it:\n%s", r.stdout)
	}
	t.Logf("screenshots in %s", dir)
}
