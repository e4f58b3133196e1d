package kube

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/kube/manifest"
)

// acDoc is AdmissionCheck name, Active when active (no status otherwise:
// its controller never reconciled it).
func acDoc(name string, active bool) string {
	d := fmt.Sprintf("kind: AdmissionCheck\nmetadata: {name: %s}\nspec: {controllerName: example.com/c}", name)
	if active {
		d += "\nstatus: {conditions: [{type: Active, status: 'True', reason: Active, message: m, lastTransitionTime: '2026-01-01T00:00:00Z'}]}"
	}
	return d
}

// checkedCQ is ClusterQueue a (4 CPUs of tas) running the checks named.
func checkedCQ(checks ...string) string {
	d := preemptCQ("a", "", 4, "")
	if len(checks) == 0 {
		return d
	}
	var rules []string
	for _, c := range checks {
		rules = append(rules, "{name: "+c+"}")
	}
	return strings.Replace(d, "spec: {", "spec: {admissionChecksStrategy: {admissionChecks: ["+strings.Join(rules, ", ")+"]}, ", 1)
}

// heldWL is Workload w holding quota in a, one pod on r1-h1, with the
// check states given ("prov: Ready") and, when admitted, Admitted True
// (else Admitted False, UnsatisfiedChecks).
func heldWL(states string, admitted bool) string {
	y := preemptWL("w", "la", 0, 0, 1, "", "r1-h1:1", 0)
	cond := "{type: Admitted, status: 'False', reason: UnsatisfiedChecks, message: m, lastTransitionTime: '2026-01-01T09:00:00Z'}, "
	if admitted {
		cond = "{type: Admitted, status: 'True', reason: Admitted, message: m, lastTransitionTime: '2026-01-01T09:00:00Z'}, "
	}
	y = strings.Replace(y, "  conditions: [", "  conditions: ["+cond, 1)
	if states == "" {
		return y
	}
	var cs []string
	for s := range strings.SplitSeq(states, ",") {
		n, st, _ := strings.Cut(strings.TrimSpace(s), ": ")
		cs = append(cs, fmt.Sprintf("{name: %s, state: %s, message: m, lastTransitionTime: '2026-01-01T09:30:00Z'}", n, st))
	}
	return y + "  admissionChecks: [" + strings.Join(cs, ", ") + "]\n"
}

// Admission checks as Kueue v0.17's workload controller runs them, each
// case worked by hand: the outcome, the checks written (name=state, with
// retryCount), and the conditions that say whether it is admitted (Kueue's
// SyncAdmittedCondition writes Admitted only where it changes: none on a
// Workload never Admitted, whose input condition stays as it was). a's
// one flavor makes every rule cover all its flavors, so a Workload
// without quota lists every check too, as Kueue lists them.
func TestAdmitKueueWorkloads_AdmissionChecks(t *testing.T) {
	pending := preemptWL("w", "la", 0, 0, 1, "", "", 0)
	const awaits = "quota reserved, waiting for admission check(s) prov to be Ready"
	for _, c := range []struct {
		name       string
		queues     []string
		wl         string
		action     KueueAction
		msg        string
		checks     string // name=state[/retryCount], sorted by name
		admitted   string // the Admitted condition's status/reason ("" when it has none)
		reserved   bool   // QuotaReserved True, with status.admission
		evicted    string // the Evicted condition's status/reason ("" when it has none)
		deactivate bool   // spec.active set false
	}{
		{"no checks: admitted", []string{checkedCQ()}, pending, KueueAdmitted, "", "", "True/Admitted", true, "", false},
		{"new reservation waits for its check", []string{checkedCQ("prov"), acDoc("prov", true)}, pending,
			KueueAwaitingChecks, awaits, "prov=Pending", "", true, "", false},
		{"two checks, listed by name", []string{checkedCQ("zeta", "prov"), acDoc("prov", true), acDoc("zeta", true)}, pending,
			KueueAwaitingChecks, "quota reserved, waiting for admission check(s) prov, zeta to be Ready", "prov=Pending zeta=Pending", "", true, "", false},
		{"held, check Ready: admitted", []string{checkedCQ("prov"), acDoc("prov", true)}, heldWL("prov: Ready", false),
			KueueAdmitted, "its admission checks are all Ready", "prov=Ready", "True/Admitted", true, "", false},
		{"held, check Pending: still waits", []string{checkedCQ("prov"), acDoc("prov", true)}, heldWL("prov: Pending", false),
			KueueAwaitingChecks, awaits, "prov=Pending", "False/UnsatisfiedChecks", true, "", false},
		{"held and admitted, a check added: stays admitted", []string{checkedCQ("prov"), acDoc("prov", true)}, heldWL("", true),
			KueueKept, "", "prov=Pending", "True/Admitted", true, "", false},
		{"a check no longer run is dropped", []string{checkedCQ("prov"), acDoc("prov", true)}, heldWL("old: Pending, prov: Ready", false),
			KueueAdmitted, "its admission checks are all Ready", "prov=Ready", "True/Admitted", true, "", false},
		{"Retry: evicted, queued again, reserved again", []string{checkedCQ("prov"), acDoc("prov", true)}, heldWL("prov: Retry", false),
			KueueAwaitingChecks, "evicted (AdmissionCheck): At least one admission check is false; " + awaits, "prov=Pending/1", "False/UnsatisfiedChecks", true, "False/QuotaReserved", false},
		{"Rejected: deactivated", []string{checkedCQ("prov"), acDoc("prov", true)}, heldWL("prov: Rejected", false),
			KueueInactive, "deactivated: Admission check(s): prov, were rejected", "prov=Pending", "False/UnsatisfiedChecks", false, "True/DeactivatedDueToAdmissionCheck", true},
		// Kueue deactivates it only once quota is reserved (docs/kueue.md,
		// Not modelled): the end state when it fits, as here.
		{"Rejected while pending: deactivated", []string{checkedCQ("prov"), acDoc("prov", true)}, pending + "status: {admissionChecks: [{name: prov, state: Rejected, message: m, lastTransitionTime: '2026-01-01T09:30:00Z'}]}\n",
			KueueInactive, "deactivated: Admission check(s): prov, were rejected", "prov=Pending", "", false, "True/DeactivatedDueToAdmissionCheck", true},
		{"Retry while pending: reserved with the check reset, as Kueue ends", []string{checkedCQ("prov"), acDoc("prov", true)}, pending + "status: {admissionChecks: [{name: prov, state: Retry, message: m, lastTransitionTime: '2026-01-01T09:30:00Z'}]}\n",
			KueueAwaitingChecks, "evicted (AdmissionCheck): At least one admission check is false; " + awaits, "prov=Pending/1", "", true, "False/QuotaReserved", false},
		{"check missing: ClusterQueue inactive", []string{checkedCQ("prov")}, pending,
			KueuePending, "ClusterQueue a is inactive: it names missing AdmissionCheck(s) prov", "prov=Pending", "", false, "", false},
		{"check not Active: ClusterQueue inactive", []string{checkedCQ("prov", "gone"), acDoc("prov", false)}, pending,
			KueuePending, "ClusterQueue a is inactive: it names missing AdmissionCheck(s) gone; it names AdmissionCheck(s) without an Active condition True: prov", "gone=Pending prov=Pending", "", false, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			outs, cl := admitAll(t, partialNodes+cohortQueues(c.queues...)+c.wl)
			require.Len(t, outs, 1)
			require.Equal(t, [2]string{string(c.action), c.msg}, [2]string{string(outs[0].Action), outs[0].Message})
			obj := cl.KueueWorkloads[0].Obj
			var checks []string
			for _, ac := range obj.Status.AdmissionChecks {
				s := string(ac.Name) + "=" + string(ac.State)
				if ac.RetryCount != nil {
					s += fmt.Sprintf("/%d", *ac.RetryCount)
				}
				checks = append(checks, s)
			}
			require.Equal(t, c.checks, strings.Join(checks, " "))
			cond := func(typ string) string {
				if x := apimeta.FindStatusCondition(obj.Status.Conditions, typ); x != nil {
					return string(x.Status) + "/" + x.Reason
				}
				return ""
			}
			require.Equal(t, c.admitted, cond(kueue.WorkloadAdmitted))
			require.Equal(t, c.evicted, cond(kueue.WorkloadEvicted))
			require.Equal(t, c.reserved, apimeta.IsStatusConditionTrue(obj.Status.Conditions, kueue.WorkloadQuotaReserved))
			require.Equal(t, c.reserved, obj.Status.Admission != nil)
			require.Equal(t, c.deactivate, obj.Spec.Active != nil && !*obj.Spec.Active)
			requireNoOverlap(t, cl)
		})
	}
}

// Which checks run for a Workload, by the flavors it holds quota in, as
// Kueue's AdmissionChecksForWorkload picks them.
func TestChecksFor(t *testing.T) {
	cq := &KueueClusterQueue{Name: "a", Namespaces: labels.Everything(), Groups: []KueueResourceGroup{{Flavors: []KueueFlavorQuota{{Flavor: "tas"}, {Flavor: "spot"}}}}}
	held := func(flavors ...string) *kueue.Workload {
		w := &kueue.Workload{}
		if flavors != nil {
			w.Status.Admission = &kueue.Admission{}
			for _, f := range flavors {
				w.Status.Admission.PodSetAssignments = append(w.Status.Admission.PodSetAssignments, kueue.PodSetAssignment{Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{"cpu": kueue.ResourceFlavorReference(f)}})
			}
		}
		return w
	}
	for _, c := range []struct {
		name  string
		rules []KueueCheckRule
		w     *kueue.Workload
		want  []string
	}{
		{"every rule on all flavors: all run, even before a reservation", []KueueCheckRule{{Name: "b"}, {Name: "a", OnFlavors: []string{"spot", "tas"}}}, held(), []string{"a", "b"}},
		{"a rule on spot: not for a Workload in tas", []KueueCheckRule{{Name: "all"}, {Name: "s", OnFlavors: []string{"spot"}}}, held("tas"), []string{"all"}},
		{"a rule on spot: for a Workload with a set in spot", []KueueCheckRule{{Name: "all"}, {Name: "s", OnFlavors: []string{"spot"}}}, held("tas", "spot"), []string{"all", "s"}},
		{"a rule on spot: none before a reservation", []KueueCheckRule{{Name: "all"}, {Name: "s", OnFlavors: []string{"spot"}}}, held(), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			cq.Checks = c.rules
			require.Equal(t, c.want, checksFor(cq, rulesOnAllFlavors(cq), c.w))
		})
	}
}

// Bad AdmissionChecks, check rules and check states are refused at load,
// naming the object and the field.
func TestAdmissionCheck_BadInput(t *testing.T) {
	wl := preemptWL("w", "la", 0, 0, 1, "", "", 0)
	for _, c := range []struct {
		name, in, want string
	}{
		{"no controllerName", cohortQueues("kind: AdmissionCheck\nmetadata: {name: p}\nspec: {controllerName: ''}"),
			`f.yaml: document 4 (line 20): Kueue AdmissionCheck "p": spec.controllerName: must be set`},
		{"two AdmissionChecks of one name", cohortQueues(acDoc("p", true), acDoc("p", false)),
			`f.yaml: document 5 (line 25): AdmissionCheck "p": metadata.name: already defined at f.yaml: document 4 (line 17)`},
		{"a rule without a name", cohortQueues(checkedCQ("''")),
			`f.yaml: document 4 (line 20): Kueue ClusterQueue "a": spec.admissionChecksStrategy.admissionChecks[0].name: must be set`},
		{"a check named twice", cohortQueues(checkedCQ("p", "p")),
			`f.yaml: document 4 (line 20): Kueue ClusterQueue "a": spec.admissionChecksStrategy.admissionChecks[1].name: "p" is also spec.admissionChecksStrategy.admissionChecks[0].name`},
		{"an empty flavor", cohortQueues(strings.Replace(checkedCQ("p"), "{name: p}", "{name: p, onFlavors: ['']}", 1)),
			`f.yaml: document 4 (line 20): Kueue ClusterQueue "a": spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]: empty flavor name`},
		{"a state of none of the four", wl + "status: {admissionChecks: [{name: p, state: Done, message: m, lastTransitionTime: '2026-01-01T09:30:00Z'}]}\n",
			`f.yaml: document 1 (line 9): Kueue Workload "default/w": status.admissionChecks[0].state: "Done" is not Pending, Ready, Retry or Rejected`},
		{"a check listed twice", wl + "status: {admissionChecks: [{name: p, state: Ready, message: m, lastTransitionTime: '2026-01-01T09:30:00Z'}, {name: p, state: Ready, message: m, lastTransitionTime: '2026-01-01T09:30:00Z'}]}\n",
			`f.yaml: document 1 (line 9): Kueue Workload "default/w": status.admissionChecks[1].name: check "p" is listed twice`},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A second object of one kind and name is the decoder's to
			// refuse; the rest, Load's.
			objs, err := manifest.Decode("f.yaml", strings.NewReader(c.in), manifest.Options{})
			if err == nil {
				_, err = Load(objs)
			}
			require.EqualError(t, err, c.want)
		})
	}
}

// A Workload a Retry check evicts is queued by the time of its eviction,
// as Kueue's GetQueueOrderTimestamp orders it: w (created 09:59) is
// evicted at Now (10:00), p's creation, and queued behind p (equal times
// go by name), which then takes a's 4 CPUs first; queued by its creation
// w would have been reserved again first and p would wait.
func TestAdmitKueueWorkloads_RetryQueuedByEviction(t *testing.T) {
	p := preemptWL("p", "la", 0, 0, 4, "", "", 0)
	w := strings.Replace(heldWL("prov: Retry", false), "creationTimestamp: '2026-01-01T10:00:00Z'", "creationTimestamp: '2026-01-01T09:59:00Z'", 1)
	outs, cl := admitAll(t, partialNodes+cohortQueues(checkedCQ("prov"), acDoc("prov", true))+w+p)
	require.Len(t, outs, 2)
	var got []string
	for _, o := range outs {
		got = append(got, o.Workload.Name+" "+string(o.Action)+": "+o.Message)
	}
	require.Equal(t, []string{
		"p AwaitingChecks: quota reserved, waiting for admission check(s) prov to be Ready",
		"w Evicted: evicted (AdmissionCheck): At least one admission check is false; queued again: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor tas, 1 more needed",
	}, got)
	requireNoOverlap(t, cl)
}
