package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/frontend/dashboard"
	"github.com/loopx-dev/loopx/internal/frontend/httpapi"
	"github.com/loopx-dev/loopx/internal/frontend/serve"
	"github.com/spf13/cobra"
)

// dashboardOptions are `loopx dashboard`'s flags.
type dashboardOptions struct {
	noOpen bool
}

// dashboardLink is `loopx dashboard --json`'s document.
type dashboardLink struct {
	// URL opens the dashboard once: its code is exchanged for a session.
	URL string `json:"url"`
	// ExpiresAt is when the code stops working (5 minutes).
	ExpiresAt time.Time `json:"expires_at"`
	// ServerPID is the server's process id.
	ServerPID int `json:"server_pid"`
}

// runDashboard checks that a human asks (data.loopx.repair.decision,
// refused and audited otherwise), starts the project's server when none
// runs, mints a single-use code and opens the browser at the URL carrying
// it (or prints it, --no-open).
func (a *app) runDashboard(ctx context.Context, o *dashboardOptions) error {
	root, dir, err := a.anchorDir()
	if err != nil {
		return err
	}
	e, err := a.engine()
	if err != nil {
		return err
	}
	if err := a.humanOnly(ctx, e, "dashboard", true, "dashboard.refused", root); err != nil {
		return err
	}
	r, err := serve.Status(dir)
	if errors.Is(err, serve.ErrNotRunning) {
		// The server takes the store's lock: let it go first.
		if err := e.Release(); err != nil {
			return err
		}
		abs, _ := filepath.Abs(root)
		if r, err = a.startServer(dir, []string{"serve", "--project", abs}); err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "loopx: started the project's server (pid %d); loopx serve stop ends it\n", r.PID)
	} else if err != nil {
		return err
	}
	if r.Addr == "" {
		return usagef("the project's server (pid %d) serves no HTTP (it was started with --addr ''): stop it with loopx serve stop and run loopx dashboard again", r.PID)
	}
	tok, err := os.ReadFile(filepath.Join(dir, httpapi.TokenFile))
	if err != nil {
		return errs.Internalf("dashboard_token", "the server's token: %v", err)
	}
	now, err := a.clock()
	if err != nil {
		return err
	}
	code, err := dashboard.MintCode(string(trimSpace(tok)), now())
	if err != nil {
		return err
	}
	link := dashboardLink{URL: "http://" + r.Addr + "/login?code=" + code, ExpiresAt: now().Add(dashboard.CodeTTL).UTC().Truncate(time.Second), ServerPID: r.PID}
	opened := false
	if !o.noOpen {
		opened = a.openBrowser(link.URL)
	}
	return a.print(link, func(w io.Writer) {
		if opened {
			fmt.Fprintf(w, "opened the dashboard in your browser; if it did not open, use this link (once, within 5 minutes):\n%s\n", link.URL)
			return
		}
		fmt.Fprintf(w, "open the dashboard (this link works once, within 5 minutes):\n%s\n", link.URL)
	})
}

// openBrowser starts the caller's browser at url ($BROWSER, else xdg-open,
// else open), with the caller's environment, without waiting for it; it
// reports whether one started.
func (a *app) openBrowser(url string) bool {
	var names []string
	if b := a.getenv("BROWSER"); b != "" {
		names = append(names, b)
	}
	names = append(names, "xdg-open", "open")
	for _, n := range names {
		path, err := exec.LookPath(n)
		if err != nil {
			continue
		}
		cmd := exec.Command(path, url)
		cmd.Env = a.opts.Caller.Environ()
		if err := cmd.Start(); err == nil {
			go func() { _ = cmd.Wait() }()
			return true
		}
	}
	return false
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

func (a *app) dashboardCmd() *cobra.Command {
	o := &dashboardOptions{}
	c := &cobra.Command{
		Use:   "dashboard [--no-open]",
		Short: "Open the project's dashboard in a browser (human only)",
		Long: `Dashboard opens the page where a human sees what needs them and answers:
open gates (answered on the page), rule changes waiting for loopx adopt
(adopted or restored after typing the word on the page), what happened
since the last review, governance health, the goals' lanes, the board of
todos, quota, the timeline and the agents, updated live.

It starts the project's server (loopx serve, in the background) when none
runs, and opens the browser at a link carrying a single-use code, valid for
5 minutes, that the page exchanges for a session cookie (HttpOnly,
SameSite=Strict, named after the project): the server's token never appears
in a URL. --no-open prints the link instead; each run makes a new one.
Writes on the page run the same loopx commands on the "dashboard" channel,
recorded as the human's.

It is for a human: from an agent's process or inside a round it is refused
(exit 1) and audited (dashboard.refused). See docs/dashboard.md.`,
		Example: "  loopx dashboard\n  loopx dashboard --no-open\n  loopx dashboard --no-open --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runDashboard(cmd.Context(), o)
		},
	}
	c.Flags().BoolVar(&o.noOpen, "no-open", false, "print the link instead of opening a browser")
	return c
}
