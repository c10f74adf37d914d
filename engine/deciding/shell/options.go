package shell

import "strings"

// This file splits a command's words into options and operands, the way
// the reader's rules for particular programs read them.

// opt is one option of a command: "-x" or "--name", with its value.
type opt struct {
	name   string
	val    word
	hasVal bool
}

// scanOpts splits args into options and operands. A short option letter in
// valued takes a value: the rest of its cluster ("-ofile") or the next word
// ("-o file"); a long option listed in long (space-separated, without
// dashes) takes "--name=v" or "--name v", others only "--name=v". With
// permute, options after operands count too (GNU style); without, the first
// operand ends them. "--" always ends them; a lone "-" is an operand.
// When unsure whether a word is a value, scanOpts takes it for an operand:
// callers treat operands as the files a command touches.
func scanOpts(args []word, valued, long string, permute bool) (opts []opt, ops []word) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.s == "--":
			return opts, append(ops, args[i+1:]...)
		case strings.HasPrefix(a.s, "--"):
			name, val, hasVal := strings.Cut(a.s[2:], "=")
			o := opt{name: "--" + name, hasVal: hasVal}
			if hasVal {
				o.val = word{s: val, dyn: a.dyn, pos: a.pos, end: a.end}
			} else if listed(long, name) && i+1 < len(args) {
				i++
				o.val, o.hasVal = args[i], true
			}
			opts = append(opts, o)
		case len(a.s) > 1 && a.s[0] == '-':
			for j := 1; j < len(a.s); j++ {
				c := a.s[j]
				o := opt{name: "-" + string(c)}
				if strings.IndexByte(valued, c) >= 0 {
					if j+1 < len(a.s) {
						o.val, o.hasVal = word{s: a.s[j+1:], dyn: a.dyn, pos: a.pos, end: a.end}, true
					} else if i+1 < len(args) {
						i++
						o.val, o.hasVal = args[i], true
					}
					opts = append(opts, o)
					break
				}
				opts = append(opts, o)
			}
		default:
			if !permute {
				return opts, append(ops, args[i:]...)
			}
			ops = append(ops, a)
		}
	}
	return opts, ops
}

// listed reports whether name is in the space-separated list.
func listed(list, name string) bool {
	for f := range strings.FieldsSeq(list) {
		if f == name {
			return true
		}
	}
	return false
}

func hasOpt(opts []opt, names ...string) bool {
	for _, o := range opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}

func optVals(opts []opt, names ...string) []word {
	var out []word
	for _, o := range opts {
		for _, n := range names {
			if o.name == n && o.hasVal {
				out = append(out, o.val)
			}
		}
	}
	return out
}

// dashdash returns the index of "--" in ws, or -1.
func dashdash(ws []word) int {
	for i, w := range ws {
		if w.s == "--" {
			return i
		}
	}
	return -1
}

func firstWord(ws []word, alt string) string {
	if len(ws) > 0 {
		return ws[0].s
	}
	return alt
}

// joinWords is the words as one script (eval, watch and parallel join
// their arguments with spaces); the result is dynamic if any word is.
func joinWords(ws []word) word {
	out := word{}
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.s
		out.dyn |= w.dyn
	}
	if len(ws) > 0 {
		out.pos, out.end = ws[0].pos, ws[len(ws)-1].end
	}
	out.s = strings.Join(parts, " ")
	return out
}
