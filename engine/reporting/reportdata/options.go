package reportdata

import "time"

// ReviewOptions select a review packet.
type ReviewOptions struct {
	Goal string
	// Since is how far back to look; 0 means since the goal's last review
	// (else reportdata.DefaultReviewWindow).
	Since time.Duration
	// Mark records a review.generated event after the packet is built, so
	// that the next review starts where this one ends (`loopx review
	// --mark`, human only: the caller checks the channel). Without it the
	// review writes nothing to the state.
	Mark bool
	// Actor is recorded on the review.generated event.
	Actor string
}

// PromptOptions select a prompt.
type PromptOptions struct {
	Goal, Agent string
	// Full lifts the character bound and lists every gate, the whole
	// handoff and up to 50 fresh evidence records.
	Full bool
	// MaxChars bounds the prompt in characters (0 = render.DefaultPromptChars);
	// ignored when Full.
	MaxChars int
}
