package shell

import (
	"slices"
	"strings"
	"unicode"
)

// This file models what a command means to loopx itself: the loopx action
// it maps to (git push → git.push, …; spec gates guard these names) and
// loopx's human-only verbs, which must never hide behind an expansion.

// commandAction maps a normalised simple command other than git's (see
// reader.gitAction) to a loopx action, the names spec gates guard
// (goals.<g>.gates.<n>.guards) and scope.commands and grants may name:
//
//	gh pr merge             → git.merge
//	npm|yarn|pnpm publish … → npm.publish
//	loopx … gate answer …   → loopx.gate.answer
//
// Global options before the subcommand (loopx --project DIR) are skipped.
// Anything else maps to "" (no action beyond shell.exec).
func commandAction(argv []string) string {
	args := operands(argv[1:], map[string]bool{"--project": true, "-R": true, "--repo": true})
	at := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	switch argv[0] {
	case "gh":
		if at(0) == "pr" && at(1) == "merge" {
			return "git.merge"
		}
	case "npm", "yarn", "pnpm":
		if at(0) == "publish" || at(1) == "publish" {
			return "npm.publish"
		}
	case "loopx":
		if at(0) == "gate" && at(1) == "answer" {
			return "loopx.gate.answer"
		}
	}
	return ""
}

// operands returns args without options; an option in valued (given
// without "=") also drops the word after it. After "--" all are operands.
func operands(args []string, valued map[string]bool) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i+1:]...)
		case strings.HasPrefix(a, "-") && a != "-":
			if valued[a] {
				i++
			}
		default:
			out = append(out, a)
		}
	}
	return out
}

// subcommands marks a command whose action words are built from
// expansions opaque: the first two operands of gh, npm, yarn and pnpm
// (`gh pr $x`, `npm $x`); and, since loopx's human-only verbs must never
// hide behind an expansion, any command with an argument built from one
// whose other arguments hold a verb word of loopx (`x $A answer`), or whose
// command word is loopx, a path or a program loopx does not know (`loopx
// ${V:-gate} answer`, `./bin/lx $(echo adopt)`). The reason names the
// verbs the literal words may complete (for the policy's human-only rule).
// git's subcommand is checked by gitGlobal.
func (r *reader) subcommands(name string, ws []word) {
	var dyn *word
	var verbs []string
	for i := range ws[1:] {
		w := &ws[i+1]
		switch {
		case w.dyn != 0:
			if dyn == nil {
				dyn = w
			}
			for _, v := range verbsIn(r.snippet(*w)) {
				verbs = appendNew(verbs, v)
			}
		case verbWords[w.s] != "":
			verbs = appendNew(verbs, verbWords[w.s])
		}
	}
	if dyn != nil && (len(verbs) > 0 || name == "loopx" || strings.Contains(ws[0].s, "/") || !knownCommand(name)) {
		if len(verbs) > 0 {
			r.opaquef("%s argument built from %s beside loopx verb words: it may run `%s`", name, r.snippet(*dyn), strings.Join(verbs, "`, `"))
		} else {
			r.opaquef("%s argument built from %s", name, r.snippet(*dyn))
		}
		return
	}
	switch name {
	case "gh", "npm", "yarn", "pnpm":
		for i, w := range ws[1:] {
			if i >= 2 {
				return
			}
			if w.dyn != 0 {
				r.opaquef("%s argument built from %s", name, r.snippet(w))
				return
			}
		}
	}
}

// verbsIn are the human-only verbs a word of the text of an expansion
// belongs to: the expansion may yield it (${V:-adopt}, $(echo register));
// a flag cut short by the expansion counts when a verb flag starts with it
// (--accept-$X).
func verbsIn(text string) []string {
	var out []string
	for _, t := range strings.FieldsFunc(text, func(c rune) bool {
		return c != '-' && c != '_' && !unicode.IsLetter(c) && !unicode.IsDigit(c)
	}) {
		for k, v := range verbWords {
			if k == t || k == strings.TrimLeft(t, "-") || (strings.HasPrefix(t, "--") && len(t) > 3 && strings.HasPrefix(k, t)) {
				out = appendNew(out, v)
			}
		}
	}
	slices.Sort(out)
	return out
}

// verbWords maps each word of loopx's human-only verbs to the verb it is
// part of (only a human answers a gate or adopts rules; the policy's
// human_only rule decides).
var verbWords = map[string]string{"gate": "gate answer", "answer": "gate answer", "adopt": "adopt",
	"doctor": "doctor --accept-store", "--accept-store": "doctor --accept-store", "events": "events --prune-before",
	"--prune-before": "events --prune-before", "hooks": "hooks uninstall", "uninstall": "hooks uninstall",
	"agent": "agent register", "register": "agent register", "dashboard": "dashboard"}
