package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube"
)

// kueuePreemptOracleCase is one file of kube/testdata/kueue-oracle/preemption:
// the real Kueue v0.17.0's state after it settled on the manifests named
// (paths in that directory), whose admitted Workloads were written first and
// whose pending ones were then created (see the README there).
type kueuePreemptOracleCase struct {
	Kueue     string   `json:"kueue"`
	Manifests []string `json:"manifests"`
	// Profiles, when set, are the topology profiles gangsim is held to
	// the case under, in place of gangsched and kueue: for a Kueue search
	// the gangsched profile does not model (a PodSetGroup's leader-aware
	// split), or one Kueue ran with TASBalancedPlacement (kueue-balanced).
	Profiles []string `json:"gangsimProfiles"`
	Phases   []struct {
		Workloads []kueuePreemptAns `json:"workloadsAfterSettle"`
	} `json:"phases"`
	// OtherRuns are the answers Kueue gave in other runs of the same
	// manifests (the last phase's Workloads), where it breaks ties by
	// UID or by the timing of its controllers: gangsim must give the
	// recorded answer or one of these.
	OtherRuns [][]kueuePreemptAns `json:"otherRuns"`
}

// kueuePreemptAns is Kueue's answer for one Workload once it settled.
type kueuePreemptAns struct {
	Workload string `json:"workload"`
	Admitted bool   `json:"admitted"`
	PodSets  []struct {
		Name   string           `json:"name"`
		Flavor string           `json:"flavor"`
		Nodes  map[string]int32 `json:"nodes"`
		// Count, when set, is the count Kueue admitted, below
		// the spec's (partial admission).
		Count *int32 `json:"count"`
		// DelayedTopologyRequest is the podSetAssignment's
		// delayedTopologyRequest, when the harness read it
		// (Pending: Kueue's first pass reserved its quota without a
		// topology).
		DelayedTopologyRequest string `json:"delayedTopologyRequest"`
	} `json:"podSets"`
	// KueueMessage is "Pending: " and Kueue's QuotaReserved message,
	// or "(no QuotaReserved condition)".
	KueueMessage string `json:"kueueMessage"`
	Evictions    []struct {
		Reason string `json:"reason"`
	} `json:"evictions"`
	// PreemptedMessage is the Preempted condition's reason, ": ",
	// and its message.
	PreemptedMessage string `json:"preemptedMessage"`
	// AwaitingChecks: Kueue reserved its quota ("admitted") but
	// left it not Admitted: its admission checks not all Ready
	// (gangsim's AwaitingChecks), or its delayed topology not found
	// by the second pass (DelayedTopologyWaits).
	AwaitingChecks bool `json:"awaitingChecks"`
	// Reclaimable are status.reclaimablePods' counts by pod set.
	Reclaimable map[string]int32 `json:"reclaimablePods"`
	// KnownDifference, when set, says why gangsim's pending reason
	// differs, or, for a Workload Kueue or gangsim admits, why
	// gangsim's admission differs (admitted or not, its nodes, or
	// preempted or not); the test then requires that it still does.
	KnownDifference string `json:"knownDifference"`
	// KnownDifferenceProfiles, when set, are the topology profiles
	// the known difference holds under; under the others gangsim
	// agrees (the gangsched profile words some reasons its own
	// way, where the Kueue profiles use Kueue's words).
	KnownDifferenceProfiles []string `json:"knownDifferenceProfiles"`
}

// TestKueuePreemptionOracle holds gangsim's preemption to the real Kueue's
// recorded answers: for every Workload, admitted or not, its pods per node
// and flavor, whether it was preempted and for which reason
// (InClusterQueue, InCohortReclamation, InCohortReclaimWhileBorrowing),
// whether a stopped queue drained it (ClusterQueueStopped,
// LocalQueueStopped), and a pending one's reason (a topology failure's,
// in Kueue's words, under the Kueue profiles alone) —
// under the gangsched and kueue topology profiles alike.
func TestKueuePreemptionOracle(t *testing.T) {
	dir := td + "kueue-oracle/preemption/"
	files, err := filepath.Glob(dir + "*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var c kueuePreemptOracleCase
		require.NoError(t, json.Unmarshal(b, &c), f)
		profiles := c.Profiles
		if len(profiles) == 0 {
			profiles = []string{"gangsched", "kueue"}
		}
		for _, prof := range profiles {
			t.Run(strings.TrimSuffix(filepath.Base(f), ".json")+"/"+prof, func(t *testing.T) {
				checkPreemptionOracle(t, dir, f, prof)
			})
		}
	}
}

// checkPreemptionOracle runs gangsim under topology profile prof on the
// manifests of oracle file f (in dir) and compares every Workload.
func checkPreemptionOracle(t *testing.T, dir, f, prof string) {
	b, err := os.ReadFile(f)
	require.NoError(t, err)
	var c kueuePreemptOracleCase
	require.NoError(t, json.Unmarshal(b, &c))
	require.Equal(t, "v0.17.0", c.Kueue)
	got := kueueResultsOf(t, []string{"-topology-profile", prof}, dir, c.Manifests)
	require.NotEmpty(t, c.Phases)
	recorded := c.Phases[len(c.Phases)-1].Workloads
	if len(c.OtherRuns) == 0 {
		checkPreemptAnswer(t, recorded, got, prof)
		return
	}
	var first *answerT
	for _, ans := range append([][]kueuePreemptAns{recorded}, c.OtherRuns...) {
		at := &answerT{}
		if at.try(func() { checkPreemptAnswer(at, ans, got, prof) }) {
			return
		}
		if first == nil {
			first = at
		}
	}
	t.Errorf("gangsim gives none of Kueue's %d answers; against the recorded one: %s", len(c.OtherRuns)+1, strings.Join(first.msgs, "; "))
}

// answerT collects the failures of a check of one of Kueue's answers,
// ending the check at the first FailNow.
type answerT struct{ msgs []string }

// Errorf records a failure.
func (a *answerT) Errorf(format string, args ...any) {
	a.msgs = append(a.msgs, fmt.Sprintf(format, args...))
}

// FailNow ends the check.
func (a *answerT) FailNow() { panic(a) }

// try runs check and reports whether it passed.
func (a *answerT) try(check func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if r != any(a) {
				panic(r)
			}
			ok = false
		}
	}()
	check()
	return len(a.msgs) == 0
}

// checkPreemptAnswer compares gangsim's results got under topology
// profile prof with Kueue's answer for every Workload.
func checkPreemptAnswer(t require.TestingT, answer []kueuePreemptAns, got map[string]KueueResult, prof string) {
	for _, want := range answer {
		r, ok := got[want.Workload]
		require.True(t, ok, "gangsim has no answer for %s", want.Workload)
		awaiting := r.Action == string(kube.KueueAwaitingChecks) || r.Action == string(kube.KueueDelayedTopologyWaits)
		admits := !r.waits() && !r.idle() || awaiting
		if len(want.KnownDifferenceProfiles) > 0 && !slices.Contains(want.KnownDifferenceProfiles, prof) {
			want.KnownDifference = ""
		}
		if want.KnownDifference != "" && (want.Admitted || admits) {
			wantNodes := map[string]map[string]int32{}
			for _, ps := range want.PodSets {
				wantNodes[ps.Name] = ps.Nodes
			}
			preempted := len(want.Evictions) > 0 && want.Evictions[len(want.Evictions)-1].Reason == "Preempted"
			require.True(t, preemptOracleDiffers(want.Admitted, wantNodes, preempted, admits, r), "%s: gangsim now answers as Kueue does; drop the known difference", want.Workload)
			continue
		}
		require.Equal(t, want.Admitted, !r.waits() && !r.idle() || awaiting, "%s: gangsim %s %s", want.Workload, r.Action, r.Message)
		require.Equal(t, want.AwaitingChecks, awaiting, "%s: gangsim %s %s", want.Workload, r.Action, r.Message)
		if n := len(want.Evictions); n > 0 && strings.HasPrefix(want.Evictions[n-1].Reason, "DeactivatedDueTo") {
			// Deactivated (a Rejected admission check): the harness's
			// "eviction finished" message is its own.
			require.Equal(t, string(kube.KueueInactive), r.Action, "%s", want.Workload)
			continue
		}
		nodes := map[string]map[string]int32{}
		flavors := map[string]string{}
		for _, ps := range r.PodSets {
			nodes[ps.Name], flavors[ps.Name] = map[string]int32{}, ps.Flavor
			for _, n := range ps.Nodes {
				nodes[ps.Name][n.Node] += n.Count
			}
		}
		wantNodes, wantFlavors := map[string]map[string]int32{}, map[string]string{}
		for _, ps := range want.PodSets {
			wantNodes[ps.Name], wantFlavors[ps.Name] = ps.Nodes, ps.Flavor
			if ps.Nodes == nil {
				// A set holding quota and no topology: some harness
				// copies leave its nodes out.
				wantNodes[ps.Name] = map[string]int32{}
			}
		}
		if want.Admitted {
			require.Equal(t, wantNodes, nodes, "%s", want.Workload)
			require.Equal(t, wantFlavors, flavors, "%s", want.Workload)
			// The admitted count, which a set on quota alone shows only
			// in gangsim's message.
			for _, ps := range want.PodSets {
				words := fmt.Sprintf("pod set %q with ", ps.Name)
				if ps.Count != nil && want.Reclaimable[ps.Name] > 0 {
					// Kueue admits a set without the pods reclaimable
					// then (partially or not) and writes that count; a
					// sliced set's pods placed are its whole slices, so
					// up to a slice less one below it (the nodes are
					// compared above; the count written, in kube's
					// TestAdmitKueueWorkloads_ReclaimableSlicedQuota).
					var n int32
					for _, c := range ps.Nodes {
						n += c
					}
					require.GreaterOrEqual(t, *ps.Count, n, "%s", want.Workload)
					continue
				}
				if ps.DelayedTopologyRequest == "Pending" {
					require.Contains(t, r.Message, fmt.Sprintf("without a topology for pod set(s) %q (delayedTopologyRequest Pending)", ps.Name), "%s", want.Workload)
				}
				if ps.Count != nil {
					require.Contains(t, r.Message, fmt.Sprintf("partially admitted: %s%d of", words, *ps.Count), "%s", want.Workload)
				} else {
					require.NotContains(t, r.Message, "partially admitted: "+words, "%s", want.Workload)
				}
			}
		}
		if n := len(want.Evictions); n > 0 && strings.HasSuffix(want.Evictions[n-1].Reason, "QueueStopped") {
			// Drained by a HoldAndDrain queue (ClusterQueueStopped,
			// LocalQueueStopped).
			require.Contains(t, r.Message, "evicted ("+want.Evictions[n-1].Reason+")", "%s", want.Workload)
		}
		preempted := len(want.Evictions) > 0 && want.Evictions[len(want.Evictions)-1].Reason == "Preempted"
		require.Equal(t, preempted, strings.HasPrefix(r.Message, "preempted by "), "%s: gangsim %s %s", want.Workload, r.Action, r.Message)
		if reason, msg, ok := strings.Cut(want.PreemptedMessage, ": "); ok && want.PreemptedMessage != "" {
			if reason == "QuotaReserved" {
				// Admitted again: Kueue turned Preempted False
				// ("Previously: …"); the reason is in the message.
				require.Equal(t, string(kube.KueueReadmitted), r.Action, "%s", want.Workload)
				reason = preemptedReasonOf(t, msg)
			}
			require.Contains(t, r.Message, "("+reason+")", "%s", want.Workload)
		}
		if want.KueueMessage == "(no QuotaReserved condition)" && !want.Admitted && len(want.Evictions) == 0 {
			// Never tried (behind a StrictFIFO head), or assumed every
			// cycle and its admission never written (a sliced set
			// without a whole slice).
			require.True(t, strings.Contains(r.Message, "no QuotaReserved condition is written") || strings.HasPrefix(r.Message, "waits behind "), "%s: gangsim %s %s", want.Workload, r.Action, r.Message)
		}
		if msg, ok := strings.CutPrefix(want.KueueMessage, "Pending: "); ok && !want.Admitted {
			if want.KnownDifference != "" {
				require.NotContains(t, r.Message, msg, "%s: gangsim now agrees with Kueue; drop the known difference", want.Workload)
				continue
			}
			if prof == "gangsched" && topologyFailure(msg) {
				// gangsched's profile words a topology failure its own
				// way; the Kueue profiles word it as Kueue does.
				continue
			}
			require.Contains(t, r.Message, msg, "%s", want.Workload)
		}
	}
}

// preemptOracleDiffers reports whether gangsim's result r (admits: it
// holds quota) differs from Kueue's answer: admitted or not (admitted),
// pods per node by set (nodes), or preempted or not (preempted).
func preemptOracleDiffers(admitted bool, nodes map[string]map[string]int32, preempted, admits bool, r KueueResult) bool {
	if admitted != admits || preempted != strings.HasPrefix(r.Message, "preempted by ") {
		return true
	}
	for name, want := range nodes {
		got := map[string]int32{}
		for _, q := range r.PodSets {
			if q.Name == name {
				for _, n := range q.Nodes {
					got[n.Node] += n.Count
				}
			}
		}
		if !maps.Equal(got, want) {
			return true
		}
	}
	return false
}

// preemptedReasonOf is the Preempted condition reason whose words Kueue's
// preemption message msg gives ("… due to prioritization in the
// ClusterQueue; …"), as Kueue's HumanReadablePreemptionReasons words them.
func preemptedReasonOf(t require.TestingT, msg string) string {
	for words, reason := range map[string]string{
		"prioritization in the ClusterQueue":            "InClusterQueue",
		"reclamation within the cohort":                 "InCohortReclamation",
		"Fair Sharing within the cohort":                "InCohortFairSharing",
		"reclamation within the cohort while borrowing": "InCohortReclaimWhileBorrowing",
	} {
		if strings.Contains(msg, " due to "+words+";") {
			return reason
		}
	}
	require.Fail(t, "no preemption reason", "%q", msg)
	return ""
}
