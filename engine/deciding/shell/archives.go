package shell

import (
	"path"
	"strings"
)

// This file models archivers and compressors: where tar, unzip, 7z, cpio,
// pax and ar extract (files named inside the archive: loopx cannot list
// them), what zip and the gzip family write, and their options that run
// commands.

// archives records what an archiver or compressor writes or runs; false
// when name is none.
func (r *reader) archives(name string, args []word, here dirs, stdin stdinKind) bool {
	write, writeAll := r.writer(name, here)
	switch name {
	case "unzip":
		opts, ops := scanOpts(args, "dxP", "", true)
		d := optVals(opts, "-d")
		switch {
		case hasOpt(opts, "-l", "-t", "-v", "-Z", "-p", "-c", "-z"):
		case len(d) > 0:
			r.opaquef("unzip extracts files named inside the archive (loopx cannot list them) into %s", r.snippet(d[0]))
			writeAll(d)
		default:
			r.opaquef("unzip extracts files named inside %s into the working directory (name one with -d)", firstWord(ops, "the archive"))
		}
	case "7z", "7za", "7zz":
		if len(args) > 0 && (args[0].s == "x" || args[0].s == "e") {
			found := false
			for _, a := range args[1:] {
				if strings.HasPrefix(a.s, "-o") && len(a.s) > 2 {
					a.s, found = a.s[2:], true
					r.opaquef("7z extracts files named inside the archive (loopx cannot list them) into %s", a.s)
					write(a)
				}
			}
			if !found {
				r.opaquef("7z extracts files named inside the archive into the working directory (name one with -o)")
			}
		}
	case "pax":
		if opts, _ := scanOpts(args, "fsopxbBG", "", true); hasOpt(opts, "-r") {
			r.opaquef("pax -r extracts files named inside the archive into the working directory")
		}
	case "ar":
		if len(args) > 0 && !strings.HasPrefix(args[0].s, "-") && strings.ContainsAny(args[0].s, "x") || len(args) > 0 && strings.HasPrefix(args[0].s, "-") && strings.Contains(args[0].s, "x") {
			r.opaquef("ar x extracts the members named inside the archive into the working directory")
		}
	case "cpio":
		if opts, _ := scanOpts(args, "DEFHIMOR", "directory file", true); hasOpt(opts, "-i", "--extract") {
			if d := optVals(opts, "-D", "--directory"); len(d) > 0 {
				r.opaquef("cpio -i extracts files named inside the archive (loopx cannot list them) into %s", r.snippet(d[0]))
				writeAll(d)
			} else {
				r.opaquef("cpio -i extracts files named inside the archive into the working directory")
			}
		}
	case "zip":
		opts, ops := scanOpts(args, "bnstxiOPZ", "temp-path suffixes from-crlf exclude include output-file password", true)
		if len(ops) > 0 {
			write(ops[0]) // the archive
		}
		writeAll(optVals(opts, "-O", "--output-file"))
		if hasOpt(opts, "-m", "--move") && len(ops) > 1 {
			writeAll(ops[1:])
		}
		if hasOpt(opts, "-T", "--test") {
			for _, a := range args {
				if a.s == "-TT" || strings.HasPrefix(a.s, "--unzip-command") {
					r.opaquef("zip -TT runs a command")
				}
			}
		}
	case "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma", "zstd", "unzstd", "lz4", "compress", "uncompress", "pigz", "unpigz":
		opts, ops := scanOpts(args, "oST", "suffix output", true)
		if hasOpt(opts, "-c", "--stdout", "--to-stdout", "-t", "--test", "-l", "--list") {
			break
		}
		writeAll(ops)
		writeAll(optVals(opts, "-o", "--output"))
	case "tar", "bsdtar", "gtar":
		r.tar(name, args, here)
	default:
		return false
	}
	return true
}

// tar records where an extraction or a created archive writes and marks
// options that run commands opaque.
func (r *reader) tar(name string, args []word, here dirs) {
	if len(args) > 0 && !strings.HasPrefix(args[0].s, "-") && args[0].dyn == 0 { // old style: tar xzf a.tgz
		first := args[0]
		first.s = "-" + first.s
		args = append([]word{first}, args[1:]...)
	}
	opts, ops := scanOpts(args, "fCbIFgHKLNTVX", "file directory blocking-factor use-compress-program info-script new-volume-script listed-incremental format starting-file tape-length files-from label exclude-from to-command checkpoint-action rsh-command rmt-command newer after-date exclude", true)
	for _, o := range opts {
		switch o.name {
		case "--to-command", "-I", "--use-compress-program", "-F", "--info-script", "--new-volume-script", "--rsh-command", "--rmt-command":
			r.opaquef("%s %s runs a command", name, o.name)
		case "--checkpoint-action":
			if strings.Contains(o.val.s, "exec") {
				r.opaquef("%s %s runs a command", name, o.name)
			}
		}
	}
	extract := hasOpt(opts, "-x", "--extract", "--get")
	create := hasOpt(opts, "-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate")
	switch {
	case extract && !hasOpt(opts, "-O", "--to-stdout"):
		dirsC := optVals(opts, "-C", "--directory")
		if len(dirsC) == 0 {
			r.opaquef("%s extracts files named inside the archive into the working directory (name one with -C)", name)
			return
		}
		r.opaquef("%s extracts files named inside the archive (loopx cannot list them) into %s", name, r.snippet(dirsC[len(dirsC)-1]))
		for _, d := range dirsC {
			r.writeTarget(d, here, name+" -C target")
		}
		if d := dirsC[len(dirsC)-1]; d.dyn == 0 { // named members, under the last -C
			for _, m := range ops {
				m.s = path.Join(d.s, m.s)
				r.writeTarget(m, here, name+" member")
			}
		}
	case create:
		for _, f := range optVals(opts, "-f", "--file") {
			if f.s != "-" {
				r.writeTarget(f, here, name+" -f target")
			}
		}
		if hasOpt(opts, "--remove-files") { // the archived files are removed
			from := here
			for _, d := range optVals(opts, "-C", "--directory") {
				from = r.cdTo(d, here)
			}
			for _, m := range ops {
				r.writeTarget(m, from, name+" --remove-files target")
			}
		}
	}
}
