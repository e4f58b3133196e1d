package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/kube/replay"
	"github.com/gangsched/gangsched/placement"
)

// Estimates are -estimate's answer: when each pending group would start,
// where, and what it would evict on the way, replaying the cluster from
// Now with the running pods' expected ends (gangsched.io/expected-duration)
// and the queue as it is.
type Estimates struct {
	// Now is the moment of the dump: -now, else its latest
	// creationTimestamp or status.startTime.
	Now    time.Time       `json:"now"`
	Groups []GroupEstimate `json:"groups"`
}

// GroupEstimate is one pending group's estimate.
type GroupEstimate struct {
	// Kind is "PodGroup", or "Pod" for a pod in no PodGroup; Name is
	// namespace/name.
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Tree is the root CompositePodGroup (namespace/name) of the
	// hierarchy the PodGroup is a leaf of, decided whole; "" outside one.
	Tree     string `json:"tree,omitempty"`
	Policy   string `json:"policy"`
	MinCount int    `json:"minCount,omitempty"`
	Pods     int    `json:"pods"`
	// WhatIf marks a group of the -what-if workload.
	WhatIf bool `json:"whatIf,omitempty"`
	// Verdict is "fits now", "starts later" or "never".
	Verdict string `json:"verdict"`
	// Start is when it would start, and In how long after Now.
	Start     *time.Time `json:"start,omitempty"`
	In        string     `json:"in,omitempty"`
	Placement string     `json:"placement,omitempty"`
	Nodes     []string   `json:"nodes,omitempty"`
	// Evicts are the pods preemption would evict for it.
	Evicts []string `json:"evicts,omitempty"`
	// Reason is why it waits (the message of its last cycle that left it
	// waiting), or why it never starts.
	Reason string `json:"reason,omitempty"`
}

// estimate replays c from now and estimates every group with pending pods;
// whatIf names (by Kind and namespace/name) the groups of an added
// workload, and when it is not empty only those are listed.
func estimate(c *kube.Cluster, opts options, now time.Time, whatIf map[string]bool) (Estimates, error) {
	if err := checkTopology(c); err != nil {
		return Estimates{}, err
	}
	spread, err := clusterHooks(c, opts)
	if err != nil {
		return Estimates{}, err
	}
	in, err := replay.FromCluster(c)
	if err != nil {
		return Estimates{}, err
	}
	forever := 0 // running pods that never end
	dump := epoch
	for _, p := range in.Pods {
		if p.NodeName != "" && p.Duration == 0 {
			forever++
		}
		dump = later(dump, p.QueuedAt, p.StartTime)
	}
	if now.IsZero() {
		now = dump
	}
	ro := replayOptions(c, opts, now, spread)
	ro.Preemption, ro.PreemptionFor = opts.preemption, preemptionFor(c, opts.noPreemption)
	res, err := replay.Run(in, ro)
	if err != nil {
		return Estimates{}, err
	}
	pending := map[string]bool{}
	for _, p := range c.Pending {
		if p.SchedulingGroup == "" {
			pending["Pod "+p.Key().String()] = true
		} else {
			pending["PodGroup "+p.Namespace+"/"+p.SchedulingGroup] = true
		}
	}
	// A tree is decided whole, so a what-if leaf of one answers for its
	// siblings too: adding it may move or starve them.
	trees := map[string]bool{}
	for _, g := range res.Groups {
		if whatIf[g.Kind+" "+g.Name] && g.Tree != "" {
			trees[g.Tree] = true
		}
	}
	est := Estimates{Now: now, Groups: []GroupEstimate{}}
	for _, g := range res.Groups {
		id := g.Kind + " " + g.Name
		if !pending[id] || (len(whatIf) > 0 && !whatIf[id] && !trees[g.Tree]) {
			continue
		}
		ge := GroupEstimate{Kind: g.Kind, Name: g.Name, Tree: g.Tree, Policy: g.Policy, MinCount: g.MinCount, Pods: g.Size, WhatIf: whatIf[id],
			Placement: g.Placement, Nodes: g.Nodes, Evicts: g.Evicts, Reason: g.Reason}
		switch {
		case !g.Started && g.Failed:
			ge.Verdict = "never"
			ge.Reason = "its scheduling cycle fails: " + g.Reason
		case !g.Started && strings.HasPrefix(g.Reason, replay.GatedPrefix):
			// Gated (a missing parent, too few members): no room helps.
			ge.Verdict = "never"
		case !g.Started:
			ge.Verdict = "never"
			empty, sibling, why, err := fitsEmpty(in, g, res, now, opts, c, spread)
			switch {
			case err != nil:
				return Estimates{}, err
			case !empty && sibling:
				ge.Reason = "even on the empty cluster its tree is placed without it: " + why
			case !empty:
				ge.Reason = "it does not fit even on the empty cluster: " + why
			case forever > 0:
				ge.Reason += fmt.Sprintf("; it would fit on the empty cluster, but %d running pods have no %s, so they never end here", forever, replay.AnnotationExpectedDuration)
			}
		case !g.Start.After(now):
			ge.Verdict, ge.Reason = "fits now", ""
		default:
			ge.Verdict, ge.Reason = "starts later", g.FirstReason
			switch {
			case g.Arrival.After(now):
				ge.Reason = "it is created at " + g.Arrival.Format(time.RFC3339)
			case ge.Reason == "":
				// No cycle ran for it before it started: the scheduler
				// waited for its members (or its tree's) to be created.
				ge.Reason = "too few of its pods exist yet"
				if g.Tree != "" {
					ge.Reason = "too few of its tree's pods exist yet"
				}
			}
		}
		if g.Started {
			// A group with members running before now started then: it
			// fits now, in no time.
			t := later(g.Start, now)
			ge.Start, ge.In = &t, t.Sub(now).String()
		}
		est.Groups = append(est.Groups, ge)
	}
	return est, nil
}

// replayOptions are the options of a replay that decides as the run of
// opts would (profile, feature gates, topology, node scoring), from now.
func replayOptions(c *kube.Cluster, opts options, now time.Time, spread runHooks) replay.Options {
	return replay.Options{Start: now, MaxCycles: opts.maxCycles, TopologyProfile: opts.topologyProfile, TopologyLevels: topologyKeys(c, opts.topologyKeys),
		SolveOptions: solveOptions(c, opts.scoring, spread), Profile: opts.profile, PodGroupPreemptionPolicy: opts.gates.podGroupPreemptionPolicy}
}

// fitsEmpty reports whether group g would start on in's nodes with no pod
// running and no other group queued, and if not, why. A leaf of a
// hierarchy is tried with its whole tree's pending pods, as the tree is
// decided whole; sibling reports that another leaf of it would start.
func fitsEmpty(in replay.Input, g replay.GroupOutcome, res *replay.Result, now time.Time, opts options, c *kube.Cluster, spread runHooks) (started, sibling bool, why string, err error) {
	alone := replay.Input{Nodes: in.Nodes, PodGroups: in.PodGroups, CompositePodGroups: in.CompositePodGroups, Claims: in.Claims}
	ids := map[string]bool{g.Kind + " " + g.Name: true}
	if g.Tree != "" {
		for _, o := range res.Groups {
			if o.Tree == g.Tree {
				ids[o.Kind+" "+o.Name] = true
			}
		}
	}
	for _, p := range in.Pods {
		id := "PodGroup " + p.Namespace + "/" + p.SchedulingGroup
		if p.SchedulingGroup == "" {
			id = "Pod " + p.Key().String()
		}
		if p.NodeName == "" && ids[id] {
			alone.Pods = append(alone.Pods, p)
		}
	}
	out, err := replay.Run(alone, replayOptions(c, opts, now, spread))
	if err != nil {
		return false, false, "", err
	}
	for _, o := range out.Groups {
		switch {
		case o.Kind == g.Kind && o.Name == g.Name:
			started, why = o.Started, o.Reason
		case g.Tree != "" && o.Tree == g.Tree && o.Started:
			sibling = true
		}
	}
	return started, sibling, why, nil
}

func later(ts ...time.Time) time.Time {
	var out time.Time
	for _, t := range ts {
		if t.After(out) {
			out = t
		}
	}
	return out
}

// writeEstimates prints one line per group, and the reason it waits now.
func writeEstimates(w io.Writer, est Estimates) {
	fmt.Fprintf(w, "now: %s\n", est.Now.Format(time.RFC3339))
	for _, g := range est.Groups {
		head := g.Kind + " " + g.Name
		if g.WhatIf {
			head = "what-if " + head
		}
		if g.Kind == "PodGroup" {
			tree := ""
			if g.Tree != "" {
				tree = ", in CompositePodGroup " + g.Tree
			}
			if g.Policy == "gang" {
				head += fmt.Sprintf(" (gang, minCount %d, %d pods%s)", g.MinCount, g.Pods, tree)
			} else {
				head += fmt.Sprintf(" (basic, %d pods%s)", g.Pods, tree)
			}
		}
		var where []string
		if g.Placement != "" {
			where = append(where, "in "+g.Placement)
		}
		if len(g.Nodes) > 0 {
			where = append(where, "on "+list(g.Nodes))
		}
		if len(g.Evicts) > 0 {
			where = append(where, "evicting "+list(g.Evicts))
		}
		switch g.Verdict {
		case "fits now":
			fmt.Fprintf(w, "%s: fits now %s\n", head, strings.Join(where, ", "))
		case "starts later":
			fmt.Fprintf(w, "%s: starts at %s (in %s) %s\n", head, g.Start.Format(time.RFC3339), g.In, strings.Join(where, ", "))
			fmt.Fprintf(w, "  waits now: %s\n", g.Reason)
		default:
			fmt.Fprintf(w, "%s: never, because %s\n", head, g.Reason)
		}
	}
}

// whatIfGroups names, as estimate's whatIf does, the groups of the added
// workload objs once loaded in c: its PodGroups, the PodGroups of its
// Jobs (or their pods, for a Job that schedules pod by pod), and its pods'
// groups.
func whatIfGroups(objs []manifest.Object, c *kube.Cluster) map[string]bool {
	pods := map[placement.Key]bool{}
	ids := map[string]bool{}
	for _, o := range objs {
		k := placement.Key{Namespace: o.Namespace, Name: o.Name}
		switch o.Kind {
		case "PodGroup":
			ids["PodGroup "+k.String()] = true
		case "Pod":
			pods[k] = true
		case "Job":
			for _, j := range c.Jobs {
				if j.Key != k {
					continue
				}
				if j.PodGroup != nil {
					ids["PodGroup "+j.PodGroup.Key().String()] = true
				}
				for _, p := range j.Pods {
					pods[placement.Key{Namespace: p.Namespace, Name: p.Name}] = true
				}
			}
		}
	}
	for _, p := range c.Pending {
		if !pods[p.Key()] {
			continue
		}
		if p.SchedulingGroup == "" {
			ids["Pod "+p.Key().String()] = true
		} else {
			ids["PodGroup "+p.Namespace+"/"+p.SchedulingGroup] = true
		}
	}
	return ids
}

// runEstimate answers -estimate or -what-if in the format of -o (text or
// json; yaml is refused earlier) and returns the exit code: exitWaiting
// when some group never starts.
func runEstimate(stdout, stderr io.Writer, c *kube.Cluster, opts options, now time.Time, whatIf map[string]bool, output string) int {
	est, err := estimate(c, opts, now, whatIf)
	if err != nil {
		fmt.Fprintln(stderr, "gangsim:", err)
		return exitInput
	}
	if !writeOut(stdout, stderr, output, est, func(w io.Writer) { writeEstimates(w, est) }) {
		return exitInput
	}
	for _, g := range est.Groups {
		if g.Verdict == "never" {
			return exitWaiting
		}
	}
	return exitPlaced
}
