package output

import (
	"bytes"
	"io"
	"regexp"
)

// ANSI SGR sequences loopx colours its own words with.
const (
	sgrRed    = "\x1b[31m"
	sgrGreen  = "\x1b[32m"
	sgrYellow = "\x1b[33m"
	sgrBold   = "\x1b[1m"
	sgrReset  = "\x1b[0m"
)

// ColourWanted reports whether text for a person on a stream should be
// coloured: the stream is a terminal, NO_COLOR is unset or empty
// (https://no-color.org) and TERM is not "dumb". getenv reads the
// environment of whoever runs the command.
func ColourWanted(terminal bool, getenv func(string) string) bool {
	return terminal && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// paintRule colours the submatch named "w" of a line that matches re.
type paintRule struct {
	re  *regexp.Regexp
	sgr func(word []byte) string
}

// fixed returns a paintRule colour that does not depend on the word.
func fixed(sgr string) func([]byte) string { return func([]byte) string { return sgr } }

// verdictColour is the colour of a decision's verdict: green when it
// allows, red when it denies, yellow when it waits or leaves it to
// someone else.
func verdictColour(w []byte) string {
	switch string(w) {
	case "run", "allow":
		return sgrGreen
	case "deny":
		return sgrRed
	}
	return sgrYellow
}

// paintRules are the words loopx colours, each at the start of one of its
// own lines: a decision's verdict, check's summary and each finding's rule
// (red an error, yellow a warning), a pending rule change, a note or
// warning, loopx's own error prefix.
var paintRules = []paintRule{
	{regexp.MustCompile(`^(?:should_run|permission|claim|gate_answer): (?P<w>run|allow|deny|skip|wait_human|defer|ask)\b`), verdictColour},
	{regexp.MustCompile(`^(?P<w>check ok):`), fixed(sgrGreen)},
	{regexp.MustCompile(`^(?P<w>check failed):`), fixed(sgrRed)},
	{regexp.MustCompile(`^[^\s:]+(?::\d+){1,2}: (?P<w>[a-z][a-z0-9-]* \(warning\)):`), fixed(sgrYellow)},
	{regexp.MustCompile(`^[^\s:]+(?::\d+){1,2}: (?P<w>[a-z][a-z0-9-]*):`), fixed(sgrRed)},
	{regexp.MustCompile(`^(?:> )?(?P<w>rules pending):`), fixed(sgrYellow)},
	{regexp.MustCompile(`^(?P<w>note|warning):`), fixed(sgrYellow)},
	{regexp.MustCompile(`^(?P<w>loopx):`), fixed(sgrBold + sgrRed)},
}

// Paint returns line (without its newline) with the first of paintRules
// that matches it coloured; the line unchanged when none does.
func Paint(line []byte) []byte {
	for _, r := range paintRules {
		m := r.re.FindSubmatchIndex(line)
		if m == nil {
			continue
		}
		i := r.re.SubexpIndex("w")
		start, end := m[2*i], m[2*i+1]
		var b bytes.Buffer
		b.Write(line[:start])
		b.WriteString(r.sgr(line[start:end]))
		b.Write(line[start:end])
		b.WriteString(sgrReset)
		b.Write(line[end:])
		return b.Bytes()
	}
	return line
}

// Painter colours loopx's own words (Paint) in the text written through
// it, line by line: it sits below the inert writer, so the escape
// sequences it adds are loopx's, never a spec's, a policy's or an agent's.
type Painter struct {
	// Off passes everything through as it is (no terminal, NO_COLOR,
	// output for a program).
	Off bool
	w   io.Writer
	buf []byte
}

// NewPainter returns a Painter writing to w.
func NewPainter(w io.Writer) *Painter { return &Painter{w: w} }

// Write paints each complete line of p and writes it; a partial line waits
// for its end (or Flush).
func (p *Painter) Write(b []byte) (int, error) {
	if p.Off && len(p.buf) == 0 {
		return p.w.Write(b)
	}
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		line := p.buf[:i]
		if !p.Off {
			line = Paint(line)
		}
		if _, err := p.w.Write(append(line[:len(line):len(line)], '\n')); err != nil {
			return len(b), err
		}
		p.buf = p.buf[i+1:]
	}
}

// Flush writes a partial line left over, painted.
func (p *Painter) Flush() error {
	if len(p.buf) == 0 {
		return nil
	}
	line := p.buf
	if !p.Off {
		line = Paint(line)
	}
	_, err := p.w.Write(line)
	p.buf = nil
	return err
}
