package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file names what a git subcommand does as a loopx action (a push
// however it is spelled, a force push among them) and resolves git's
// aliases by reading the configuration, never by running git.

// gitCommands are git's own subcommands (builtins and the programs git
// ships, plus lfs and subtree): `git <name>` runs one of them whatever
// the configuration says (git ignores an alias of the same name).
var gitCommands = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.Fields(`add am annotate apply archive bisect blame branch bugreport bundle
	cat-file check-attr check-ignore check-mailmap check-ref-format checkout checkout-index cherry
	cherry-pick citool clean clone column commit commit-graph commit-tree config count-objects
	credential credential-cache credential-store describe diagnose diff diff-files diff-index diff-tree
	difftool fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref
	for-each-repo format-patch fsck fsck-objects fsmonitor--daemon gc get-tar-commit-id grep gui
	hash-object help hook http-backend http-fetch http-push imap-send index-pack init init-db instaweb
	interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base
	merge-file merge-index merge-octopus merge-one-file merge-ours merge-recursive merge-resolve
	merge-subtree merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes p4 pack-objects
	pack-redundant pack-refs patch-id prune prune-packed pull push quiltimport range-diff read-tree
	rebase receive-pack reflog refs remote repack replace replay request-pull rerere reset restore
	rev-list rev-parse revert rm scalar send-email send-pack shortlog show show-branch show-index
	show-ref sparse-checkout stage stash status stripspace submodule switch symbolic-ref tag
	unpack-file unpack-objects update-index update-ref update-server-info upload-archive upload-pack
	var verify-commit verify-pack verify-tag version whatchanged worktree write-tree lfs subtree`) {
		m[c] = true
	}
	return m
}()

// gitCommand reports a subcommand git runs as its own (gitCommands) or a
// remote helper (remote-<transport>).
func gitCommand(sub string) bool {
	return gitCommands[sub] || strings.HasPrefix(sub, "remote-") && len(sub) > len("remote-")
}

// pushForcing are git push's long options that overwrite or delete what
// a remote holds (git accepts any unambiguous prefix of a long option).
var pushForcing = []string{"force", "force-with-lease", "force-if-includes", "mirror", "delete", "prune"}

// gitAction records the loopx action of git subcommand sub (its arguments
// rest) on the simple command emitted at index at:
//
//	git push, send-pack, http-push, subtree push, lfs push → git.push
//	  and, when it may overwrite or delete what the remote holds, git.push.force:
//	  -f, --force, --force-with-lease, --force-if-includes, --mirror, -d,
//	  --delete, --prune (or a prefix of one), a +refspec or :branch operand,
//	  an operand built from an expansion, or no refspec while a remote's
//	  configured push refspec forces (remote.<r>.push=+…, remote.<r>.mirror,
//	  in the configuration or a -c of cfg)
//	git remote-<transport> (a remote helper)  → git.push, git.push.force (opaque:
//	  what it pushes comes from its standard input)
//	git merge, git commit, git tag → git.merge, git.commit, git.tag
func (r *reader) gitAction(sub string, rest []word, at int, cfg []word) {
	switch {
	case sub == "push" || sub == "send-pack" || sub == "http-push":
		r.act(at, "git.push")
		if r.pushForces(rest, cfg) {
			r.act(at, "git.push.force")
		}
	case (sub == "subtree" || sub == "lfs") && len(rest) > 0 && firstOperand(rest) == "push":
		r.act(at, "git.push")
	case strings.HasPrefix(sub, "remote-"):
		r.act(at, "git.push")
		r.act(at, "git.push.force")
		r.opaquef("git %s is a remote helper: what it pushes comes from its standard input", sub)
	case sub == "merge" || sub == "commit" || sub == "tag":
		r.act(at, "git."+sub)
	}
}

// firstOperand is the first word of ws that is not an option.
func firstOperand(ws []word) string {
	for _, w := range ws {
		if !strings.HasPrefix(w.s, "-") {
			return w.s
		}
	}
	return ""
}

// pushForces reports whether a push (push, send-pack, http-push: its
// arguments rest; the line's -c words cfg) may overwrite or delete what
// the remote holds (see gitAction).
func (r *reader) pushForces(rest []word, cfg []word) bool {
	opts, ops := scanOpts(rest, "o", "repo push-option receive-pack exec", true)
	for _, o := range opts {
		switch {
		case o.name == "-f" || o.name == "-d":
			return true
		case strings.HasPrefix(o.name, "--") && !strings.HasPrefix(o.name, "--no-"):
			n := o.name[2:]
			for _, f := range pushForcing {
				if n != "" && strings.HasPrefix(f, n) {
					return true
				}
			}
		}
	}
	for _, w := range rest {
		if w.dyn != 0 { // it may yield -f or +main
			return true
		}
	}
	for _, w := range ops {
		if strings.HasPrefix(w.s, "+") || strings.HasPrefix(w.s, ":") {
			return true
		}
	}
	if len(ops) > 1 { // refspecs after the remote (or URL): they say what is pushed
		return false
	}
	if r.opts.Git != nil && r.opts.Git.ForcePush {
		return true
	}
	for _, kv := range cfg {
		k, v, _ := strings.Cut(kv.s, "=")
		k = strings.ToLower(k)
		if strings.HasPrefix(k, "remote.") && (strings.HasSuffix(k, ".push") && strings.HasPrefix(strings.TrimSpace(v), "+") ||
			strings.HasSuffix(k, ".mirror") && gitTrue(v)) {
			return true
		}
	}
	return false
}

// gitAlias reads `git <alias> args…` as what the alias runs: `git VALUE
// args…`, or for an alias starting with "!" the shell command VALUE
// args…, read from the directories here. A subcommand that is neither
// git's own nor an alias of the configuration loopx read is opaque (it may
// be a git-<name> program anywhere in PATH), and so is an alias of a
// repository elsewhere (git -C DIR), or one given arguments built from
// expansions.
func (r *reader) gitAlias(args []word, here dirs, moved bool) {
	name := args[0].s
	val, ok := r.opts.Git.alias(name)
	if !ok || moved {
		r.opaquef("git %s is neither a git command nor an alias loopx can read", name)
		return
	}
	var b strings.Builder
	if cmd, ok := strings.CutPrefix(val, "!"); ok {
		b.WriteString(cmd)
	} else {
		b.WriteString("git " + val)
	}
	for _, a := range args[1:] {
		q, err := syntax.Quote(a.s, syntax.LangBash)
		if a.dyn != 0 || err != nil {
			r.opaquef("git alias %s given an argument built from %s", name, r.snippet(a))
			return
		}
		b.WriteString(" " + q)
	}
	r.readScript(word{s: b.String()}, here, "git alias "+name)
}
