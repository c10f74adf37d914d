package decision

import (
	"errors"

	"github.com/loopx-dev/loopx/internal/errs"
)

// Refusal is the error of a mutation d denied: the first reason becomes
// the errs.No error's code, message and data (gate_violation also names
// the gate, for ViolatedGate). A reason that names something unknown
// (unknown_agent, unknown_option) is an errs.Usage error, and so is a
// policy_error when userPolicy says a user policy does not compile (with
// its file:line:col), as for loopx decide. No reason at all is
// policy_undefined.
func Refusal(d Decision, userPolicy bool) error {
	if len(d.Reasons) == 0 {
		return refused("policy_undefined", d.Query+" denied without a reason", nil)
	}
	r := d.Reasons[0]
	switch {
	case r.Code == "unknown_agent" || r.Code == "unknown_option":
		return errs.New(errs.Usage, r.Code, r.Message)
	case r.Code == "policy_error" && userPolicy:
		return errs.New(errs.Usage, r.Code, r.Message)
	case r.Code == "gate_violation":
		return GateViolation(GateIDFromRef(r.Ref), r.Message, r.Data)
	}
	return refused(r.Code, r.Message, r.Data)
}

// gateRef is the cause of a gate_violation refusal: the open gate's id.
type gateRef string

// Error implements error.
func (g gateRef) Error() string { return "gate " + string(g) + " is open" }

// GateViolation is the gate_violation refusal (errs.No) of a mutation
// gate stops, with message and the reason's data; it wraps gate's id
// (ViolatedGate), so that the attempt can be audited after the rollback.
func GateViolation(gate, message string, data map[string]any) *errs.Error {
	e := refused("gate_violation", message, data)
	e.Err = gateRef(gate)
	return e
}

// ViolatedGate is the id of the gate behind a gate_violation refusal err,
// and false when err is none.
func ViolatedGate(err error) (string, bool) {
	var g gateRef
	if errs.CodeOf(err) != "gate_violation" || !errors.As(err, &g) {
		return "", false
	}
	return string(g), true
}

// GateIDFromRef is the gate id of a reason's ref "gate <id>" (ref itself
// when it is not of that form).
func GateIDFromRef(ref string) string {
	if len(ref) > 5 && ref[:5] == "gate " {
		return ref[5:]
	}
	return ref
}

// refused is an errs.No error with code, message and the refusal's facts.
func refused(code, message string, data map[string]any) *errs.Error {
	e := errs.New(errs.No, code, message)
	if data != nil {
		e.Data = data
	}
	return e
}

// OpenGate is the gate_violation refusal (GateViolation) of the first
// gate_open reason of a wait_human decision d, its message prefixed with
// what was refused; nil for any other decision.
func OpenGate(d Decision, refused string) *errs.Error {
	if d.Verdict != "wait_human" {
		return nil
	}
	for _, r := range d.Reasons {
		if r.Code == "gate_open" {
			return GateViolation(GateIDFromRef(r.Ref), refused+r.Message, nil)
		}
	}
	return nil
}
