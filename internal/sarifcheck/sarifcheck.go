// Package sarifcheck validates a SARIF log against the official OASIS SARIF
// 2.1.0 JSON schema (Errata 01, embedded: see NOTICE for its source and
// licence), with format assertions on. Only tests use it: it is how loopx
// proves that `loopx check --format sarif` writes logs other tools accept.
//
// The formats "uri" and "uri-reference" are checked strictly against the
// grammar of RFC 3986 (Appendix A): the validator library's own check only
// runs net/url.Parse, which accepts spaces, "[", "]" and non-ASCII
// characters that RFC 3986 forbids in a URI.
package sarifcheck

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaURL is the "id" of the embedded schema.
const SchemaURL = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

//go:embed sarif-schema-2.1.0.json
var schemaJSON []byte

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("embedded SARIF schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.RegisterFormat(&jsonschema.Format{Name: "uri", Validate: formatCheck(URI)})
	c.RegisterFormat(&jsonschema.Format{Name: "uri-reference", Validate: formatCheck(URIReference)})
	if err := c.AddResource(SchemaURL, doc); err != nil {
		return nil, fmt.Errorf("embedded SARIF schema: %w", err)
	}
	return c.Compile(SchemaURL)
})

// Validate checks that log (a JSON document) is a valid SARIF 2.1.0 log: it
// returns nil, or an error listing every schema violation with its JSON
// pointer.
func Validate(log []byte) error {
	s, err := compiled()
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return s.Validate(doc)
}

func formatCheck(check func(string) error) func(any) error {
	return func(v any) error {
		s, ok := v.(string)
		if !ok {
			return nil // format applies to strings only
		}
		return check(s)
	}
}

// The grammar of RFC 3986 Appendix A, rule by rule.
const (
	unreserved = `A-Za-z0-9\-._~`
	subDelims  = `!$&'()*+,;=`
	pctEncoded = `%[0-9A-Fa-f]{2}`
	pchar      = `(?:[` + unreserved + subDelims + `:@]|` + pctEncoded + `)`
	segment    = pchar + `*`
	segmentNZ  = pchar + `+`
	// segment-nz-nc: a first segment of a relative path, with no ":".
	segmentNZNC  = `(?:[` + unreserved + subDelims + `@]|` + pctEncoded + `)+`
	scheme       = `[A-Za-z][A-Za-z0-9+\-.]*`
	userinfo     = `(?:[` + unreserved + subDelims + `:]|` + pctEncoded + `)*`
	ipLiteral    = `\[(?P<ip>[^\]]*)\]` // checked further by checkIPLiteral
	regName      = `(?:[` + unreserved + subDelims + `]|` + pctEncoded + `)*`
	authority    = `(?:` + userinfo + `@)?(?:` + ipLiteral + `|` + regName + `)(?::[0-9]*)?`
	pathAbempty  = `(?:/` + segment + `)*`
	pathAbsolute = `/(?:` + segmentNZ + `(?:/` + segment + `)*)?`
	pathNoscheme = segmentNZNC + `(?:/` + segment + `)*`
	pathRootless = segmentNZ + `(?:/` + segment + `)*`
	query        = `(?:` + pchar + `|[/?])*`
	fragment     = query
	hierPart     = `(?://` + authority + pathAbempty + `|` + pathAbsolute + `|` + pathRootless + `|)`
	relativePart = `(?://` + authority + pathAbempty + `|` + pathAbsolute + `|` + pathNoscheme + `|)`
	tail         = `(?:\?` + query + `)?(?:#` + fragment + `)?`
)

var (
	uriRe         = regexp.MustCompile(`^` + scheme + `:` + hierPart + tail + `$`)
	relativeRefRe = regexp.MustCompile(`^` + relativePart + tail + `$`)
	ipvFutureRe   = regexp.MustCompile(`^[vV][0-9A-Fa-f]+\.[` + unreserved + subDelims + `:]+$`)
)

// URI reports whether s is a URI (RFC 3986 §3: a scheme, then the rest).
func URI(s string) error {
	m := uriRe.FindStringSubmatch(s)
	if m == nil {
		return errors.New("not a URI (RFC 3986 §3)")
	}
	return checkIPLiteral(m[uriRe.SubexpIndex("ip")], s)
}

// URIReference reports whether s is a URI-reference (RFC 3986 §4.1): a URI
// or a relative reference.
func URIReference(s string) error {
	if URI(s) == nil {
		return nil
	}
	m := relativeRefRe.FindStringSubmatch(s)
	if m == nil {
		return errors.New("not a URI reference (RFC 3986 §4.1)" + badChar(s))
	}
	return checkIPLiteral(m[relativeRefRe.SubexpIndex("ip")], s)
}

// checkIPLiteral checks the inside of an IP-literal host ("" when there is
// none): an IPv6address or an IPvFuture (RFC 3986 §3.2.2).
func checkIPLiteral(ip, s string) error {
	if ip == "" && !strings.Contains(s, "[") {
		return nil
	}
	if ipvFutureRe.MatchString(ip) {
		return nil
	}
	if a, err := netip.ParseAddr(ip); err == nil && a.Is6() && a.Zone() == "" {
		return nil
	}
	return fmt.Errorf("invalid IP literal [%s] (RFC 3986 §3.2.2)", ip)
}

// badChar names the first character no URI may hold unencoded, if any.
func badChar(s string) string {
	for i, r := range s {
		switch {
		case r == '%':
			if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
				continue
			}
			return fmt.Sprintf(": %q at byte %d is not followed by two hex digits", r, i)
		case r > 0x7e || r < 0x21 || strings.ContainsRune(`"<>[\]^`+"`{|}", r):
			return fmt.Sprintf(": %q at byte %d must be percent-encoded", r, i)
		}
	}
	return ""
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
