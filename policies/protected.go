package policies

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
)

// ProtectedModule is the bundle's module of the protected set
// (package loopx.protected).
const ProtectedModule = "loopx/protected/protected.rego"

// ProtectedSet is the protected set as the bundle declares it (package
// loopx.protected): doublestar globs, relative to the project root (a
// "**/" glob matches in any directory, a ".git/" one names git's own
// directory) or to the home directory.
type ProtectedSet struct {
	// Own are loopx's own spec, policies and state (rule own).
	Own []string
	// Hosts are the agent hosts' hook and tool settings (rule hosts).
	Hosts []string
	// Git are git's files that run code or hide files (rule git).
	Git []string
	// NextCommand are project files the human's tools run (rule next_command).
	NextCommand []string
	// Home are the user's files, relative to the home directory (rule home).
	Home []string
	// Secrets are the home directory's credential stores, relative to it
	// (rule secrets): not visible inside loopx run's sandbox.
	Secrets []string
	// HostCode are the agent hosts' home files that run code or instruct
	// the agent, relative to the home directory (rule host_code): read-only
	// inside loopx run's sandbox though their host's directory is writable.
	HostCode []string
	// HostState are the home files an agent host rewrites itself while it
	// runs (rule host_state): protected from agents, not compared by the
	// change check in full.
	HostState []string
	// HostStateCompared are the parts of HostState files the change check
	// compares all the same (rule host_state_compared): "<file>:<key
	// path>", keys separated by ".", "*" any one key.
	HostStateCompared []string
}

// Project is every project glob of the set.
func (p ProtectedSet) Project() []string {
	var out []string
	for _, l := range [][]string{p.Own, p.Hosts, p.Git, p.NextCommand} {
		out = append(out, l...)
	}
	return out
}

// Compared are the globs loopx run's change check hashes: the project's
// but loopx's own (the check reads loopx/ and .loopx/ itself), and the
// home's but HostState.
func (p ProtectedSet) Compared() (project, home []string) {
	for _, l := range [][]string{p.Hosts, p.Git, p.NextCommand} {
		project = append(project, l...)
	}
	for _, h := range p.Home {
		if !slices.Contains(p.HostState, h) {
			home = append(home, h)
		}
	}
	return project, home
}

// ComparedParts are the parts of the host_state files the change check
// compares (HostStateCompared), by home-relative file: key paths, each a
// list of keys ("*" any one key).
func (p ProtectedSet) ComparedParts() map[string][][]string {
	out := map[string][][]string{}
	for _, c := range p.HostStateCompared {
		file, keys, ok := strings.Cut(c, ":")
		if ok && keys != "" {
			out[file] = append(out[file], strings.Split(keys, "."))
		}
	}
	return out
}

// Protected returns the protected set, read from ProtectedModule's rules
// (each a list of string literals), the data the permission policy's
// protected rule reads: the change check of loopx run hashes the same
// files.
var Protected = sync.OnceValue(func() ProtectedSet {
	set, err := readProtected(load().modules[ProtectedModule])
	if err != nil { // the bundle is compiled in and tested: this cannot happen at run time
		panic("policies: " + err.Error())
	}
	return set
})

// readProtected reads the protected set from src (ProtectedModule's
// source). Errors: src does not parse, or a rule is not a list of strings.
func readProtected(src string) (ProtectedSet, error) {
	lists, err := readLists(ProtectedModule, src, "own", "hosts", "git", "next_command", "home", "secrets", "host_code", "host_state", "host_state_compared")
	if err != nil {
		return ProtectedSet{}, err
	}
	return ProtectedSet{Own: lists["own"], Hosts: lists["hosts"], Git: lists["git"], NextCommand: lists["next_command"],
		Home: lists["home"], Secrets: lists["secrets"], HostCode: lists["host_code"], HostState: lists["host_state"], HostStateCompared: lists["host_state_compared"]}, nil
}

// readLists reads the rules names of the module file (source src), each
// a list of string literals. Errors: src does not parse, a rule is
// missing, or one is not a list of strings.
func readLists(file, src string, names ...string) (map[string][]string, error) {
	m, err := ast.ParseModuleWithOpts(file, src, ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, r := range m.Rules {
		name := r.Head.Name.String()
		if len(r.Head.Reference) > 0 {
			name = r.Head.Reference.String()
		}
		if !slices.Contains(names, name) {
			continue
		}
		if _, dup := out[name]; dup {
			continue
		}
		arr, ok := r.Head.Value.Value.(*ast.Array)
		if !ok {
			return nil, fmt.Errorf("%s: rule %s is not a list", file, name)
		}
		list := []string{}
		for i := range arr.Len() {
			s, ok := arr.Elem(i).Value.(ast.String)
			if !ok {
				return nil, fmt.Errorf("%s: rule %s holds %v, not a string", file, name, arr.Elem(i))
			}
			list = append(list, string(s))
		}
		out[name] = list
	}
	for _, name := range names {
		if _, ok := out[name]; !ok {
			return nil, fmt.Errorf("%s: rule %s is missing", file, name)
		}
	}
	return out, nil
}
