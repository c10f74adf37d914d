package specs

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseDuration parses a duration: anything time.ParseDuration accepts
// ("90s", "1h30m", "-5m"), plus the units "d" (24h) and "w" (7d), alone or
// mixed ("2d", "1w2d", "1.5d12h"). It returns an error for an empty, malformed
// or out-of-range (beyond ±292 years) duration. Spec durations (quota.window,
// min_interval, stale_after, expires_after, every) use this function.
func ParseDuration(s string) (time.Duration, error) {
	if !strings.ContainsAny(s, "dw") {
		return time.ParseDuration(s)
	}
	orig := s
	bad := func() (time.Duration, error) {
		return 0, errors.New("invalid duration " + strconv.Quote(orig))
	}
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return bad()
	}
	var total float64 // nanoseconds; float keeps fractions of days exact enough
	for s != "" {
		i := 0
		for i < len(s) && (s[i] == '.' || (s[i] >= '0' && s[i] <= '9')) {
			i++
		}
		num := s[:i]
		if num == "" || num == "." || strings.Count(num, ".") > 1 {
			return bad()
		}
		s = s[i:]
		j := 0
		for j < len(s) && s[j] != '.' && (s[j] < '0' || s[j] > '9') {
			j++
		}
		unit := s[:j]
		s = s[j:]
		var scale float64
		switch unit {
		case "w":
			scale = float64(7 * 24 * time.Hour)
		case "d":
			scale = float64(24 * time.Hour)
		default:
			d, err := time.ParseDuration(num + unit)
			if err != nil {
				return bad()
			}
			total += float64(d)
			continue
		}
		f, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return bad()
		}
		total += f * scale
		if total >= math.MaxInt64 || total <= math.MinInt64 {
			return 0, errors.New("duration out of range " + strconv.Quote(orig))
		}
	}
	if total >= math.MaxInt64 || total <= math.MinInt64 {
		return 0, errors.New("duration out of range " + strconv.Quote(orig))
	}
	d := time.Duration(math.Round(total))
	if neg {
		d = -d
	}
	return d, nil
}

// durationSeconds parses a spec duration and rounds it up to whole seconds
// ("500ms" is 1, "0s" is 0).
func durationSeconds(s string) (int64, error) {
	d, err := ParseDuration(s)
	if err != nil {
		return 0, err
	}
	if d < 0 {
		return 0, errors.New("negative duration " + strconv.Quote(s))
	}
	sec := int64(d / time.Second)
	if d%time.Second != 0 {
		sec++
	}
	return sec, nil
}
