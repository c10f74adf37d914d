package shell

import (
	"slices"
	"strings"
)

// This file models the network tools: what curl, wget, rsync and scp write
// (downloads loopx cannot see), and the ssh, socat and netcat options that
// run local commands.

// network records what a network tool writes or runs; false when name is
// none.
func (r *reader) network(name string, args []word, here dirs, stdin stdinKind) bool {
	write, writeAll := r.writer(name, here)
	switch name {
	case "rsync", "scp":
		// rsync's -l, -o, -c, -P, -S, -F take no value; scp's -c, -F, -i,
		// -J, -l, -o, -P, -S do.
		valued := map[string]string{"rsync": "efBTM", "scp": "cFiJloPSD"}[name]
		opts, ops := scanOpts(args, valued, "rsh rsync-path filter exclude include files-from exclude-from include-from temp-dir partial-dir backup-dir log-file password-file chmod chown timeout port compare-dest copy-dest link-dest out-format suffix bwlimit info debug usermap groupmap block-size max-size min-size write-batch only-write-batch read-batch remote-option", true)
		if name == "rsync" {
			for _, e := range optVals(opts, "-e", "--rsh") {
				r.readScript(e, here, "rsync -e")
			}
		}
		r.sshOptions(opts)
		if name == "scp" && hasOpt(opts, "-S", "-F", "-D") {
			r.opaquef("scp -S/-F/-D names the program (or the ssh config) it runs")
		}
		writeAll(optVals(opts, "--log-file", "--write-batch", "--only-write-batch", "--backup-dir"))
		if len(ops) > 1 {
			if name == "rsync" || slices.ContainsFunc(ops[:len(ops)-1], func(w word) bool { return isRemote(w.s) }) {
				r.opaquef("%s writes files loopx cannot list into %s", name, r.snippet(ops[len(ops)-1]))
			}
			if d := ops[len(ops)-1]; !isRemote(d.s) {
				write(d)
			}
			if hasOpt(opts, "--remove-source-files", "--remove-sent-files") {
				for _, src := range ops[:len(ops)-1] {
					if !isRemote(src.s) {
						write(src)
					}
				}
			}
		}
	case "ssh", "sftp":
		opts, _ := scanOpts(args, "bBcDEeFiIJlLmOoPpQRSwW", "", false)
		r.sshOptions(opts)
	case "curl":
		r.curl(args, here)
	case "wget":
		r.wget(args, here)
	case "socat":
		for _, a := range args {
			if l := strings.ToLower(a.s); strings.Contains(l, "exec:") || strings.Contains(l, "system:") {
				r.opaquef("socat runs a command (%s)", a.s)
			}
		}
	case "nc", "ncat", "netcat":
		if opts, _ := scanOpts(args, "ecpsw", "exec sh-exec lua-exec", true); hasOpt(opts, "-e", "-c", "--exec", "--sh-exec", "--lua-exec") {
			r.opaquef("%s runs a command for a connection", name)
		}
	default:
		return false
	}
	return true
}

// isRemote reports an rsync or scp operand on another host (host:path,
// rsync://…).
func isRemote(s string) bool {
	if strings.Contains(s, "://") {
		return true
	}
	i := strings.IndexByte(s, ':')
	return i > 0 && !strings.Contains(s[:i], "/")
}

// sshOptions marks -o options that run local commands opaque.
func (r *reader) sshOptions(opts []opt) {
	for _, v := range optVals(opts, "-o") {
		k := strings.ToLower(strings.TrimSpace(v.s))
		if i := strings.IndexAny(k, "= \t"); i >= 0 {
			k = k[:i]
		}
		switch k {
		case "proxycommand", "localcommand", "permitlocalcommand", "knownhostscommand", "match", "include", "remotecommand":
			r.opaquef("ssh -o %s runs a local command", k)
		}
	}
}

// curl records the files curl writes.
func (r *reader) curl(args []word, here dirs) {
	opts, ops := scanOpts(args, "oDcKdFHuAexXTbmwrCEUPQyYzt", "output output-dir dump-header cookie-jar trace trace-ascii stderr etag-save hsts alt-svc config data header user user-agent referer proxy request upload-file cookie max-time write-out range", true)
	out := r.outDir(opts, here)
	for _, f := range optVals(opts, "-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii", "--stderr", "--etag-save", "--hsts", "--alt-svc") {
		if f.s != "-" {
			r.writeTarget(f, out, "curl output")
		}
	}
	for _, f := range optVals(opts, "-o", "--output") {
		if f.s != "-" && f.s != "/dev/null" {
			r.opaquef("curl writes a download loopx cannot see into %s", r.snippet(f))
			break
		}
	}
	if hasOpt(opts, "-J", "--remote-header-name") {
		r.opaquef("curl -J names the file it writes from the server's answer")
	}
	if hasOpt(opts, "-K", "--config") {
		r.opaquef("curl -K reads options (and output files) from a file")
	}
	if hasOpt(opts, "-O", "--remote-name", "--remote-name-all") {
		r.opaquef("curl -O writes a download loopx cannot see")
		for _, u := range ops {
			r.urlFile(u, out, "curl -O")
		}
	}
}

// outDir is where curl --output-dir puts relative outputs.
func (r *reader) outDir(opts []opt, here dirs) dirs {
	for _, d := range optVals(opts, "--output-dir") {
		r.writeTarget(d, here, "curl --output-dir")
		return r.cdTo(d, here)
	}
	return here
}

// urlFile records the file named by a URL's last path element.
func (r *reader) urlFile(u word, here dirs, what string) {
	if u.dyn != 0 {
		r.opaquef("%s writes a file named by %s", what, r.snippet(u))
		return
	}
	s := u.s
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	name := "index.html"
	if i := strings.LastIndexByte(s, '/'); i >= 0 && i < len(s)-1 {
		name = s[i+1:]
	}
	r.writeTarget(word{s: name}, here, what+" output")
}

// wget records the files wget writes.
func (r *reader) wget(args []word, here dirs) {
	opts, ops := scanOpts(args, "OPoaietTwUQlADRIX", "output-document directory-prefix output-file append-output input-file tries timeout wait user-agent quota level accept reject include-directories exclude-directories header user password post-data body-data load-cookies save-cookies", true)
	for _, f := range optVals(opts, "-o", "--output-file", "-a", "--append-output", "--save-cookies") {
		r.writeTarget(f, here, "wget log")
	}
	dir := here
	for _, p := range optVals(opts, "-P", "--directory-prefix") {
		r.writeTarget(p, here, "wget -P target")
		dir = r.cdTo(p, here)
	}
	if docs := optVals(opts, "-O", "--output-document"); len(docs) > 0 {
		for _, d := range docs {
			if d.s != "-" && d.s != "/dev/null" {
				r.opaquef("wget writes a download loopx cannot see into %s", r.snippet(d))
				r.writeTarget(d, here, "wget -O target")
			}
		}
		return
	}
	if len(ops) > 0 && !hasOpt(opts, "--spider") {
		r.opaquef("wget writes a download loopx cannot see")
	}
	if hasOpt(opts, "-r", "--recursive", "-m", "--mirror", "-i", "--input-file", "--content-disposition") {
		if len(optVals(opts, "-P", "--directory-prefix")) == 0 {
			r.opaquef("wget writes files named by the server into the working directory (name one with -P)")
		}
		return
	}
	for _, u := range ops {
		r.urlFile(u, dir, "wget")
	}
}
