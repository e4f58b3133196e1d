package dra_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// deviceIn selects the devices with the given names.
func deviceIn(names ...string) dra.Selector {
	return func(_ string, d *dra.Device) bool { return slices.Contains(names, d.Name) }
}

// trapWorld is the greedy trap of length k ≥ 2 on one node with GPUs
// d0..d(k-1): member m1's claim c1 takes d0 or d(k-1), member mi's claim
// ci (1 < i < k) takes d(i-2) or d(i-1), and the last, ck, takes only
// d(k-2). Choosing greedily member by member (c1 d0, ci d(i-1)) leaves ck
// nothing, and only moving every earlier claim (c1 to d(k-1), ci to
// d(i-2)) fits them all.
func trapWorld(t testing.TB, k int) (*dra.Ledger, *placement.Snapshot, *placement.Group) {
	s := gpuSlice("n1", k)
	for i := range s.Devices {
		s.Devices[i].Name = fmt.Sprintf("d%d", i)
	}
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{s})
	require.NoError(t, err)
	var claims []dra.ResourceClaim
	var members []placement.Pod
	for i := 1; i <= k; i++ {
		var sel dra.Selector
		switch {
		case i == 1:
			sel = deviceIn("d0", fmt.Sprintf("d%d", k-1))
		case i == k:
			sel = deviceIn(fmt.Sprintf("d%d", k-2))
		default:
			sel = deviceIn(fmt.Sprintf("d%d", i-2), fmt.Sprintf("d%d", i-1))
		}
		name := fmt.Sprintf("c%d", i)
		claims = append(claims, claim(name, dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "gpu",
			Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", Selectors: []dra.Selector{sel}}}}}))
		members = append(members, pod(fmt.Sprintf("m%d", i), "pg", 100, byName("gpu", name)))
	}
	l, err := dra.NewLedger(inv, nil, claims)
	require.NoError(t, err)
	snap, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 64000, nil)}, nil)
	require.NoError(t, err)
	return l, snap, group("pg", int32(k), members...)
}

// TestScenario_GreedyTrap: on one node with GPUs d0, d1, d2, member m1
// takes d0 or d2, m2 d0 or d1, m3 only d1; the natural choices (m1 d0, m2
// d1) leave m3 nothing, and the gang is placed by moving m1 to d2 and m2
// to d0, two claims deep.
func TestScenario_GreedyTrap(t *testing.T) {
	l, s, g := trapWorld(t, 3)
	d, l, _ := cycle(t, l, s, podGroup("pg"), g)
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.True(t, d.Proven)
	require.Equal(t, map[string]string{"m1": "n1", "m2": "n1", "m3": "n1"}, nodesOf(d))
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "d2", "gpu")}, devicesOf(t, l, "c1"))
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "d0", "gpu")}, devicesOf(t, l, "c2"))
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "d1", "gpu")}, devicesOf(t, l, "c3"))
}

// TestScenario_GreedyTrapBudget: the trap of length 6 with a device
// search budget of 8 choices waits, and the decision says that it did not
// prove the gang infeasible.
func TestScenario_GreedyTrapBudget(t *testing.T) {
	l, s, g := trapWorld(t, 6)
	d, err := placement.Solve(s, g, placement.Options{Reservers: []placement.NewReserverFunc{l.Reserver(podGroup("pg"), dra.Options{SearchBudget: 8})}})
	require.NoError(t, err)
	require.Equal(t, placement.Unschedulable, d.Status, d.Message)
	require.False(t, d.Proven)
	require.Equal(t, []placement.ReasonCount{{Reason: "ResourceClaim default/c6: device search budget exhausted", Nodes: 1}}, d.Reasons)
}

// TestScenario_GreedyTrapLong: the trap of length 6 is placed too, each
// claim moved off its first choice.
func TestScenario_GreedyTrapLong(t *testing.T) {
	l, s, g := trapWorld(t, 6)
	d, l, _ := cycle(t, l, s, podGroup("pg"), g)
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "d5", "gpu")}, devicesOf(t, l, "c1"))
	for i := 2; i <= 6; i++ {
		require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", fmt.Sprintf("d%d", i-2), "gpu")}, devicesOf(t, l, fmt.Sprintf("c%d", i)))
	}
}

// oracleWorld is a tiny random cluster for the completeness oracle: 1-4
// nodes in racks a and b with room for one, two or four members, at most 8
// devices (0-3 node-local GPUs per node of model x, y or z, at most 6 in
// all, and 0-2 network devices reachable from rack a), and a gang of 1-4
// members, each with a GPU claim of its own from one of seven templates
// (any GPU, of a model, of any model but one, two GPUs, two of one model)
// and maybe the group's network claim; the PodGroup may ask for one model,
// or a model each, across all members' GPU claims.
type oracleWorld struct {
	nodes   []placement.Node
	rslices []dra.ResourceSlice
	members []placement.Pod
	viaPG   map[string]bool
	// across is the PodGroup's constraint over every member's GPU claim:
	// "" none, "match" one model, "distinct" a model each.
	across string
}

// podGroup is the world's PodGroup: the shared network claim and the
// constraint across GPU claims.
func (w oracleWorld) podGroup() dra.PodGroup {
	pg := podGroup("pg", byTemplate("net", "net-tmpl"))
	switch w.across {
	case "match":
		pg.DeviceConstraints = []dra.GroupDeviceConstraint{{Claims: []string{"gpu"}, MatchAttribute: modelAttr}}
	case "distinct":
		pg.DeviceConstraints = []dra.GroupDeviceConstraint{{Claims: []string{"gpu"}, DistinctAttribute: modelAttr}}
	}
	return pg
}

// oracleSpec is what each template asks for, as the oracle reads it.
type oracleSpec struct {
	class string
	model string // "" for any
	not   bool   // any model but model
	count int
	same  bool // matchAttribute model
}

var oracleTemplates = map[string]oracleSpec{
	"gpu-any":  {class: "gpu", count: 1},
	"gpu-x":    {class: "gpu", model: "x", count: 1},
	"gpu-y":    {class: "gpu", model: "y", count: 1},
	"gpu-no-y": {class: "gpu", model: "y", not: true, count: 1},
	"gpu-no-z": {class: "gpu", model: "z", not: true, count: 1},
	"gpu-two":  {class: "gpu", count: 2},
	"gpu-same": {class: "gpu", count: 2, same: true},
	"net-tmpl": {class: "net", count: 1},
}

const modelAttr = dra.QualifiedName("model")

func (o oracleSpec) claimSpec() dra.ClaimSpec {
	r := &dra.ExactDeviceRequest{DeviceClassName: o.class, Count: int64(o.count)}
	if o.model != "" {
		eq := dra.AttributeEquals(modelAttr, dra.StringAttribute(o.model))
		r.Selectors = []dra.Selector{eq}
		if o.not {
			r.Selectors = []dra.Selector{func(driver string, d *dra.Device) bool { return !eq(driver, d) }}
		}
	}
	cs := dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "dev", Exactly: r}}}
	if o.same {
		cs.Constraints = []dra.DeviceConstraint{{MatchAttribute: modelAttr}}
	}
	return cs
}

var gpuTemplates = []string{"gpu-any", "gpu-no-y", "gpu-no-z", "gpu-same", "gpu-two", "gpu-x", "gpu-y"}

func genOracleWorld(t *rapid.T) oracleWorld {
	w := oracleWorld{viaPG: map[string]bool{}}
	devs := 0
	for i := range rapid.IntRange(1, 4).Draw(t, "nodes") {
		name := fmt.Sprintf("n%d", i)
		rack := rapid.SampledFrom([]string{"a", "b"}).Draw(t, name+"-rack")
		w.nodes = append(w.nodes, cpuNode(name, rapid.SampledFrom([]int64{1000, 2000, 4000}).Draw(t, name+"-cpu"), map[string]string{"rack": rack}))
		s := dra.ResourceSlice{Name: name, Driver: gpuDriver, Pool: name, NodeName: name}
		for j := range rapid.IntRange(0, min(3, 6-devs)).Draw(t, name+"-gpus") {
			model := rapid.SampledFrom([]string{"x", "y", "z"}).Draw(t, fmt.Sprintf("%s-gpu%d", name, j))
			s.Devices = append(s.Devices, dra.Device{Name: fmt.Sprintf("gpu%d", j), Attributes: map[dra.QualifiedName]dra.Attribute{modelAttr: dra.StringAttribute(model)}})
			devs++
		}
		w.rslices = append(w.rslices, s)
	}
	var nics []string
	for i := range rapid.IntRange(0, 2).Draw(t, "nics") {
		nics = append(nics, fmt.Sprintf("nic%d", i))
	}
	w.rslices = append(w.rslices, netSlice("rack-a", &placement.LabelSelector{MatchLabels: map[string]string{"rack": "a"}}, nics...))
	for i := range rapid.IntRange(1, 4).Draw(t, "members") {
		name := fmt.Sprintf("m%d", i)
		gpu := rapid.SampledFrom(gpuTemplates).Draw(t, name+"-gpu")
		claims := []placement.PodResourceClaim{byTemplate("gpu", gpu)}
		if rapid.Bool().Draw(t, name+"-net") {
			claims = append(claims, byTemplate("net", "net-tmpl"))
			w.viaPG[name] = true
		}
		w.members = append(w.members, pod(name, "pg", 1000, claims...))
	}
	w.across = rapid.SampledFrom([]string{"", "match", "distinct"}).Draw(t, "across")
	return w
}

// ledger builds the world's ledger, with every input list reversed when
// mirror is set.
func (w oracleWorld) ledger(t tb, mirror bool) *dra.Ledger {
	sl := slices.Clone(w.rslices)
	cl := slices.Clone(classes)
	var templates []dra.ResourceClaimTemplate
	for _, name := range slices.Sorted(maps.Keys(oracleTemplates)) {
		templates = append(templates, tmpl(name, oracleTemplates[name].claimSpec()))
	}
	if mirror {
		for i := range sl {
			sl[i].Devices = slices.Clone(sl[i].Devices)
			slices.Reverse(sl[i].Devices)
		}
		slices.Reverse(sl)
		slices.Reverse(cl)
		slices.Reverse(templates)
	}
	inv, err := dra.NewInventory(cl, sl)
	require.NoError(t, err)
	l, err := dra.NewLedger(inv, templates, nil)
	require.NoError(t, err)
	return l
}

// feasible is the brute-force oracle: it tries every assignment of
// members to nodes within the nodes' CPU, and for each every choice of
// devices for every claim, and reports whether some choice satisfies all
// claims at once.
func (w oracleWorld) feasible() bool {
	type odev struct {
		node  string // "" for a network device
		class string
		model string
		id    string
	}
	var devs []odev
	for _, s := range w.rslices {
		for _, d := range s.Devices {
			od := odev{node: s.NodeName, class: "gpu", id: s.Pool + "/" + d.Name}
			if s.Driver == netDriver {
				od.class = "net"
			} else {
				od.model = d.Attributes[modelAttr].String
			}
			devs = append(devs, od)
		}
	}
	reach := func(d odev, n *placement.Node) bool {
		if d.node != "" {
			return d.node == n.Name
		}
		return n.Labels["rack"] == "a"
	}
	type oclaim struct {
		spec  oracleSpec
		users []int // members
	}
	var claims []oclaim
	group := oclaim{spec: oracleTemplates["net-tmpl"]}
	for i, m := range w.members {
		claims = append(claims, oclaim{spec: oracleTemplates[m.ResourceClaims[0].ResourceClaimTemplateName], users: []int{i}})
		if w.viaPG[m.Name] {
			group.users = append(group.users, i)
		}
	}
	if len(group.users) > 0 {
		claims = append(claims, group)
	}
	at := make([]int, len(w.members)) // member -> node
	used := make([]bool, len(devs))
	var models []string // of the GPUs chosen for members' claims, for w.across
	across := func() bool {
		for i, m := range models {
			if w.across == "match" && m != models[0] || w.across == "distinct" && slices.Contains(models[:i], m) {
				return false
			}
		}
		return true
	}
	var choose func(c, from, left int, model string) bool
	choose = func(c, from, left int, model string) bool {
		if c == len(claims) {
			return across()
		}
		oc := claims[c]
		if left == 0 {
			return choose(c+1, 0, next(claims, c+1, func(i int) int { return claims[i].spec.count }), "")
		}
		for i := from; i < len(devs); i++ {
			d := devs[i]
			if used[i] || d.class != oc.spec.class || oc.spec.model != "" && (d.model == oc.spec.model) == oc.spec.not || oc.spec.same && model != "" && d.model != model {
				continue
			}
			if slices.ContainsFunc(oc.users, func(u int) bool { return !reach(d, &w.nodes[at[u]]) }) {
				continue
			}
			used[i] = true
			if c < len(w.members) {
				models = append(models, d.model)
			}
			ok := choose(c, i+1, left-1, d.model)
			if c < len(w.members) {
				models = models[:len(models)-1]
			}
			used[i] = false
			if ok {
				return true
			}
		}
		return false
	}
	var place func(m int, free []int64) bool
	place = func(m int, free []int64) bool {
		if m == len(w.members) {
			return choose(0, 0, claims[0].spec.count, "")
		}
		for n := range w.nodes {
			if free[n] < 1000 {
				continue
			}
			free[n] -= 1000
			at[m] = n
			ok := place(m+1, free)
			free[n] += 1000
			if ok {
				return true
			}
		}
		return false
	}
	free := make([]int64, len(w.nodes))
	for i, n := range w.nodes {
		free[i] = n.Allocatable[placement.ResourceCPU]
	}
	return place(0, free)
}

// next returns f(c), or 0 past the end.
func next[T any](xs []T, c int, f func(int) int) int {
	if c >= len(xs) {
		return 0
	}
	return f(c)
}

// completeProp: a gang whose nodes and devices can be chosen together is
// placed (and the placement commits), one that cannot is not, the answer
// is proven, and reversing every input list changes nothing.
func completeProp(outcomes map[string]int) func(*rapid.T) {
	return func(t *rapid.T) {
		w := genOracleWorld(t)
		want := w.feasible()
		outcomes[fmt.Sprint(want)]++
		if free := w; w.across != "" && !want {
			free.across = ""
			if free.feasible() {
				outcomes["constraint decides"]++
			}
		}
		s, err := placement.NewSnapshot(w.nodes, nil)
		require.NoError(t, err)
		pg := w.podGroup()
		g := group("pg", int32(len(w.members)), w.members...)
		l := w.ledger(t, false)
		d, err := placement.Solve(s, g, placement.Options{Reservers: []placement.NewReserverFunc{l.Reserver(pg, dra.Options{})}})
		require.NoError(t, err)
		require.Equal(t, want, d.Status == placement.Scheduled, "oracle says %t: %s", want, d.Message)
		require.True(t, d.Proven, d.Message)
		n, ups, err := l.Commit(s, pg, g, d, dra.Options{})
		require.NoError(t, err)
		if want {
			checkAllocations(t, n, s, pg, g, d)
			w.checkAcross(t, n)
		}

		ml := w.ledger(t, true)
		mg := group("pg", int32(len(w.members)), slices.Clone(w.members)...)
		slices.Reverse(mg.Members)
		mnodes := slices.Clone(w.nodes)
		slices.Reverse(mnodes)
		ms, err := placement.NewSnapshot(mnodes, nil)
		require.NoError(t, err)
		md, err := placement.Solve(ms, mg, placement.Options{Reservers: []placement.NewReserverFunc{ml.Reserver(pg, dra.Options{})}})
		require.NoError(t, err)
		require.Equal(t, d.Message, md.Message)
		require.Equal(t, nodesOf(d), nodesOf(md))
		_, mups, err := ml.Commit(ms, pg, mg, md, dra.Options{})
		require.NoError(t, err)
		require.Equal(t, statuses(ups), statuses(mups))
	}
}

// statuses strips updates to what a host writes back: name, whether it is
// created, and status (specs hold selector functions, never equal).
func statuses(ups []dra.ClaimUpdate) []string {
	var out []string
	for _, u := range ups {
		out = append(out, fmt.Sprintf("%s %t %+v %v", u.Claim.Name, u.Created, *u.Claim.Status.Allocation, u.Claim.Status.ReservedFor))
	}
	return out
}

func TestProp_CompleteAgainstOracle(t *testing.T) {
	rapid.Check(t, completeProp(map[string]int{}))
}

// TestProp_OracleGenerator shows that the oracle's worlds are sometimes
// feasible and sometimes not, and sometimes infeasible only because of
// the PodGroup's constraint across claims. The last comes up in about 5
// of 100 worlds, so a run of 100 misses it about once in 150; up to four
// runs miss it about once in 10⁹.
func TestProp_OracleGenerator(t *testing.T) {
	outcomes := map[string]int{}
	for range 4 {
		rapid.Check(t, completeProp(outcomes))
		if outcomes["constraint decides"] > 0 {
			break
		}
	}
	require.Positive(t, outcomes["true"])
	require.Positive(t, outcomes["false"])
	require.Positive(t, outcomes["constraint decides"])
}

// TestRegression_SwappedDevicesStayHeld: on node n0 with GPUs of models
// y, x, x and n1 with one x, members m0, m1 and m3 take any GPU and m2
// only a y; m2's re-search moves m0 and m1 onto each other's devices, and
// the hook must still count both as held, so m3 goes to n1 rather than
// onto a fourth GPU n0 does not have (the decision used to be Scheduled
// on n0 and Commit then failed).
func TestRegression_SwappedDevicesStayHeld(t *testing.T) {
	mk := func(node string, models ...string) dra.ResourceSlice {
		s := dra.ResourceSlice{Name: node, Driver: gpuDriver, Pool: node, NodeName: node}
		for j, m := range models {
			s.Devices = append(s.Devices, dra.Device{Name: fmt.Sprintf("gpu%d", j), Attributes: map[dra.QualifiedName]dra.Attribute{modelAttr: dra.StringAttribute(m)}})
		}
		return s
	}
	w := oracleWorld{viaPG: map[string]bool{},
		nodes:   []placement.Node{cpuNode("n0", 4000, nil), cpuNode("n1", 4000, nil)},
		rslices: []dra.ResourceSlice{mk("n0", "y", "x", "x"), mk("n1", "x")}}
	for i, tm := range []string{"gpu-any", "gpu-any", "gpu-y", "gpu-any"} {
		w.members = append(w.members, pod(fmt.Sprintf("m%d", i), "pg", 1000, byTemplate("gpu", tm)))
	}
	require.True(t, w.feasible())
	s, err := placement.NewSnapshot(w.nodes, nil)
	require.NoError(t, err)
	d, l, _ := cycle(t, w.ledger(t, false), s, podGroup("pg"), group("pg", 4, w.members...))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, map[string]string{"m0": "n0", "m1": "n0", "m2": "n0", "m3": "n1"}, nodesOf(d))
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n0", "gpu0", "dev")}, devicesOf(t, l, "m2-gpu"))
}

// checkAcross asserts that the GPUs allocated to the members' claims keep
// the world's constraint across claims.
func (w oracleWorld) checkAcross(t tb, l *dra.Ledger) {
	var models []string
	for _, m := range w.members {
		for _, r := range devicesOf(t, l, m.Name+"-gpu") {
			d, _ := l.Inventory().Device(r.DeviceID)
			models = append(models, d.Attributes[modelAttr].String)
		}
	}
	for i, m := range models {
		switch w.across {
		case "match":
			require.Equal(t, models[0], m, "models %v", models)
		case "distinct":
			require.NotContains(t, models[:i], m, "models %v", models)
		}
	}
}
