package rulebook

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agnivade/levenshtein"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// User policies cannot hang or leak: they are compiled without
// the built-ins that reach the network or read a clock or randomness, and
// evaluated under a deadline (spec field project.policy_deadline).

// ForbiddenBuiltins are the built-in functions policies may not call: those
// OPA marks non-deterministic — http.send, net.lookup_ip_addr (network),
// json.match_schema and json.verify_schema (they may fetch a remote $ref),
// opa.runtime (the process's environment and config), rand.intn,
// uuid.rfc4122, io.jwt.encode_sign and encode_sign_raw (randomness),
// time.now_ns and io.jwt.decode_verify (the clock; policies read
// input.now). A decision must be reproducible from its input and spec
// (check --replay, explain). The net.cidr_* built-ins only compute and
// stay available, as do uuid.parse and io.jwt.decode.
var ForbiddenBuiltins = sync.OnceValue(func() []string {
	var out []string
	for _, b := range ast.CapabilitiesForThisVersion().Builtins {
		if b.Nondeterministic {
			out = append(out, b.Name)
		}
	}
	slices.Sort(out)
	return out
})

// Capabilities are OPA's capabilities for this version without
// ForbiddenBuiltins, and with no host allowed to the network (a schema
// annotation cannot fetch a remote $ref either); every policy, built-in
// or the user's, is compiled with them. Shared: do not modify.
var Capabilities = sync.OnceValue(func() *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	forbidden := ForbiddenBuiltins()
	caps.Builtins = slices.DeleteFunc(caps.Builtins, func(b *ast.Builtin) bool { return slices.Contains(forbidden, b.Name) })
	caps.AllowNet = []string{}
	return caps
})

// Explain rewrites, in place, OPA's compile errors that loopx can say
// more about, and returns err: "undefined function NAME" for a forbidden
// built-in says why it is forbidden; "undefined ref" of a field a schema
// does not declare names the closest field and the fields there (and the
// query whose input has it). A wrapped compile error is returned
// unwrapped (a wrapping error's text is fixed when it is made); any other
// error as it is.
func (s *Schemas) Explain(err error) error {
	var errs ast.Errors
	if !errors.As(err, &errs) {
		return err
	}
	err = errs
	for _, e := range errs {
		name, ok := strings.CutPrefix(e.Message, "undefined function ")
		if ok && slices.Contains(ForbiddenBuiltins(), name) {
			e.Message = forbiddenMessage(name)
		}
		if d, ok := e.Details.(*ast.RefErrInvalidDetail); ok && strings.HasPrefix(e.Message, "undefined ref") {
			e.Message += undefinedRefHint(d)
		}
	}
	return err
}

// undefinedRefHint is " (did you mean input.x.y? fields of input.x: …)"
// for a reference to a field its object's schema does not declare.
func undefinedRefHint(d *ast.RefErrInvalidDetail) string {
	if d.Pos <= 0 || d.Pos >= len(d.Ref) || len(d.OneOf) == 0 {
		return ""
	}
	have, ok := d.Ref[d.Pos].Value.(ast.String)
	if !ok {
		return ""
	}
	prefix := d.Ref[:d.Pos].String()
	fields := make([]string, 0, len(d.OneOf))
	best, bestDist := "", 0
	for _, v := range d.OneOf {
		f, ok := v.(ast.String)
		if !ok {
			continue
		}
		fields = append(fields, string(f))
		if dist := levenshtein.ComputeDistance(string(have), string(f)); best == "" || dist < bestDist {
			best, bestDist = string(f), dist
		}
	}
	slices.Sort(fields)
	hint := " ("
	for _, q := range query.All {
		if q.InputField != "" && q.InputField == string(have) && prefix == "input" {
			hint += fmt.Sprintf("input.%s is only in the input of the %s query, package %s; ", string(have), q.Name, q.User)
		}
	}
	if best != "" && bestDist <= max(2, len(have)/3) {
		hint += "did you mean " + prefix + "." + best + "? "
	}
	return hint + "fields of " + prefix + ": " + strings.Join(fields, ", ") + ")"
}

func forbiddenMessage(name string) string {
	why := "it is not deterministic"
	switch name {
	case "http.send", "net.lookup_ip_addr":
		why = "it reaches the network"
	case "json.match_schema", "json.verify_schema":
		why = "it may fetch a schema over the network"
	case "time.now_ns", "io.jwt.decode_verify":
		why = "it reads the clock"
	case "rand.intn", "uuid.rfc4122", "io.jwt.encode_sign", "io.jwt.encode_sign_raw":
		why = "it reads randomness"
	case "opa.runtime":
		why = "it reads the process's environment"
	}
	return fmt.Sprintf("built-in %s is not available to loopx policies: %s, and a decision must follow from its input and the spec alone (the time is input.now)", name, why)
}

// EvalError is the reason text of a policy evaluation that failed with
// err under ctx: past its deadline (the spec field project.policy_deadline)
// when ctx ended, else the evaluation's error.
func EvalError(ctx context.Context, err error, deadline time.Duration) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || topdown.IsCancel(err) && ctx.Err() != nil {
		return fmt.Sprintf("policy evaluation passed its deadline of %s (spec field project.policy_deadline) and was stopped", deadline)
	}
	return "policy evaluation failed: " + err.Error()
}
