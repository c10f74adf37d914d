package nofollow

// forceWalk makes every resolution walk the components with O_NOFOLLOW
// instead of openat2 (tests cover both ways).
var forceWalk bool
