package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/yaml"
)

// kueueJobOracleCase is one file of kube/testdata/kueue-oracle/jobs: the
// real Kueue v0.17.0's Jobs, with its Job reconciler running, after each
// phase of Jobs was created and the state settled (see the README there).
type kueueJobOracleCase struct {
	Kueue     string   `json:"kueue"`
	Manifests []string `json:"manifests"`
	Phases    []struct {
		Phase   string         `json:"phase"`
		Created []string       `json:"created"`
		Jobs    []kueueJobAns  `json:"jobsAfterSettle"`
		Wls     []kueueJobWlAn `json:"workloadsAfterSettle"`
	} `json:"jobPhases"`
}

// kueueJobAns is a Job's fields Kueue's start and stop touch, as the
// harness read them (the template labels kube-apiserver adds left out).
type kueueJobAns struct {
	Job                 string                     `json:"job"`
	Workload            string                     `json:"workload"`
	Suspend             bool                       `json:"suspend"`
	Parallelism         *int32                     `json:"parallelism,omitempty"`
	Completions         *int32                     `json:"completions,omitempty"`
	Annotations         map[string]string          `json:"annotations,omitempty"`
	TemplateLabels      map[string]string          `json:"templateLabels,omitempty"`
	TemplateAnnotations map[string]string          `json:"templateAnnotations,omitempty"`
	NodeSelector        map[string]string          `json:"nodeSelector,omitempty"`
	Tolerations         []corev1.Toleration        `json:"tolerations,omitempty"`
	SchedulingGates     []corev1.PodSchedulingGate `json:"schedulingGates,omitempty"`
}

// kueueJobWlAn is the part of Kueue's answer for a Workload compared here.
type kueueJobWlAn struct {
	Workload string `json:"workload"`
	Admitted bool   `json:"admitted"`
}

// workloadPlaceholder stands for a Job's own Workload name in the
// kueue.x-k8s.io/workload annotation: Kueue's name hashes the Job's UID,
// which kube-apiserver drew.
const workloadPlaceholder = "<the Job's Workload>"

// TestKueueJobOracle holds gangsim's -o yaml Jobs to the real Kueue's:
// each phase's Jobs are added to the previous phase's output (the first
// to the manifests less their Jobs), and every Job's suspend,
// parallelism, completions, annotations and pod template (labels,
// annotations, nodeSelector, tolerations, scheduling gates) must be as
// Kueue's Job reconciler left it, and its Workload admitted or not as
// Kueue's; the last output is a fixed point.
func TestKueueJobOracle(t *testing.T) {
	files, err := filepath.Glob(td + "kueue-oracle/jobs/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			var c kueueJobOracleCase
			require.NoError(t, json.Unmarshal(b, &c))
			require.Equal(t, "v0.17.0", c.Kueue)
			var docs, jobs []string
			for _, m := range c.Manifests {
				d, j := splitJobs(t, td+m)
				docs, jobs = append(docs, d...), append(jobs, j...)
			}
			prev := strings.Join(docs, "\n---\n")
			for _, ph := range c.Phases {
				var in []string
				for _, j := range jobs {
					if jobPhase(t, j) == ph.Phase {
						in = append(in, j)
					}
				}
				out := runYAML(t, prev+"\n---\n"+strings.Join(in, "\n---\n"))
				if acted, ok := actAsChecks(t, out); ok {
					out = runYAML(t, acted)
				}
				got, admitted := jobsOf(t, out)
				for _, want := range ph.Jobs {
					g, ok := got[want.Job]
					require.True(t, ok, "phase %s: no Job %s in gangsim's output", ph.Phase, want.Job)
					require.Equal(t, normalJobAns(want, want.Workload), normalJobAns(g, g.Workload), "phase %s: Job %s", ph.Phase, want.Job)
					wantAdm := false
					for _, w := range ph.Wls {
						if w.Workload == want.Workload {
							wantAdm = w.Admitted
						}
					}
					require.Equal(t, wantAdm, admitted[g.Workload], "phase %s: Workload of Job %s admitted", ph.Phase, want.Job)
				}
				prev = out
			}
			require.Equal(t, prev, runYAML(t, prev), "not a fixed point")
		})
	}
}

// normalJobAns is a with its Workload's name (w) in the template's
// kueue.x-k8s.io/workload annotation replaced by [workloadPlaceholder],
// and the names dropped.
func normalJobAns(a kueueJobAns, w string) kueueJobAns {
	a.Workload = ""
	if _, name, ok := strings.Cut(w, "/"); ok && a.TemplateAnnotations["kueue.x-k8s.io/workload"] == name {
		m := map[string]string{}
		for k, v := range a.TemplateAnnotations {
			m[k] = v
		}
		m["kueue.x-k8s.io/workload"] = workloadPlaceholder
		a.TemplateAnnotations = m
	}
	return a
}

// podSetUpdatesAnnot, on an AdmissionCheck of a world, is the JSON list
// of podSetUpdates that the harness, as the check's controller, set with
// state Ready on each Workload holding quota whose state for the check
// was Pending.
const podSetUpdatesAnnot = "kueueoracle/podSetUpdates"

// actAsChecks does to gangsim's output what the harness did as the
// controller of the checks carrying [podSetUpdatesAnnot] (gangsim runs
// none): it returns the output with those states set, and whether any was.
func actAsChecks(t *testing.T, out string) (string, bool) {
	docs := strings.Split(out, "\n---")
	upd := map[kueue.AdmissionCheckReference][]kueue.PodSetUpdate{}
	for _, d := range docs {
		var ac kueue.AdmissionCheck
		if !strings.Contains(d, "kind: AdmissionCheck\n") {
			continue
		}
		require.NoError(t, yaml.Unmarshal([]byte(d), &ac))
		if s, ok := ac.Annotations[podSetUpdatesAnnot]; ok {
			var u []kueue.PodSetUpdate
			require.NoError(t, json.Unmarshal([]byte(s), &u))
			upd[kueue.AdmissionCheckReference(ac.Name)] = u
		}
	}
	acted := false
	for i, d := range docs {
		if !strings.Contains(d, "kind: Workload\n") || !strings.Contains(d, "apiVersion: kueue.x-k8s.io/") {
			continue
		}
		var w kueue.Workload
		require.NoError(t, yaml.Unmarshal([]byte(d), &w))
		if !apimeta.IsStatusConditionTrue(w.Status.Conditions, kueue.WorkloadQuotaReserved) {
			continue
		}
		changed := false
		for k := range w.Status.AdmissionChecks {
			st := &w.Status.AdmissionChecks[k]
			if u, ok := upd[st.Name]; ok && st.State == kueue.CheckStatePending {
				st.State, st.Message, st.PodSetUpdates = kueue.CheckStateReady, "ready by the harness", u
				changed = true
			}
		}
		if changed {
			b, err := yaml.Marshal(&w)
			require.NoError(t, err)
			docs[i], acted = "\n"+string(b), true
		}
	}
	return strings.Join(docs, "\n---"), acted
}

// splitJobs reads a manifest file into its documents, the Jobs apart.
func splitJobs(t *testing.T, path string) (docs, jobs []string) {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	for _, d := range strings.Split("\n"+string(b), "\n---") {
		var m struct{ Kind string }
		require.NoError(t, yaml.Unmarshal([]byte(d), &m))
		switch m.Kind {
		case "":
		case "Job":
			jobs = append(jobs, d)
		default:
			docs = append(docs, d)
		}
	}
	return docs, jobs
}

// jobPhase is a Job document's kueueoracle/phase annotation, "1" without.
func jobPhase(t *testing.T, doc string) string {
	var j batchv1.Job
	require.NoError(t, yaml.Unmarshal([]byte(doc), &j))
	if p, ok := j.Annotations["kueueoracle/phase"]; ok {
		return p
	}
	return "1"
}

// runYAML runs gangsim -o yaml on in.
func runYAML(t *testing.T, in string) string {
	t.Helper()
	var out, errb bytes.Buffer
	code := run([]string{"-o", "yaml", "-f", "-"}, strings.NewReader(in), &out, &errb, false)
	require.Contains(t, []int{exitPlaced, exitWaiting}, code, "stderr: %s", errb.String())
	return out.String()
}

// jobsOf reads gangsim's -o yaml output: each Job as the harness records
// it (its Workload by ownerReference), and each Kueue Workload's
// admission (Admitted True) by namespace/name.
func jobsOf(t *testing.T, out string) (map[string]kueueJobAns, map[string]bool) {
	jobs, admitted := map[string]kueueJobAns{}, map[string]bool{}
	owner := map[string]string{}
	for _, d := range strings.Split(out, "\n---") {
		var m struct {
			Kind     string
			Metadata struct {
				Name, Namespace string
				OwnerReferences []struct{ Kind, Name string }
			}
			Status struct {
				Conditions []struct{ Type, Status string }
			}
		}
		require.NoError(t, yaml.Unmarshal([]byte(d), &m))
		switch m.Kind {
		case "Job":
			var j batchv1.Job
			require.NoError(t, yaml.Unmarshal([]byte(d), &j))
			s := j.Spec.Template.Spec
			jobs[j.Namespace+"/"+j.Name] = kueueJobAns{Job: j.Namespace + "/" + j.Name, Suspend: j.Spec.Suspend != nil && *j.Spec.Suspend,
				Parallelism: j.Spec.Parallelism, Completions: j.Spec.Completions, Annotations: j.Annotations,
				TemplateLabels: j.Spec.Template.Labels, TemplateAnnotations: j.Spec.Template.Annotations,
				NodeSelector: s.NodeSelector, Tolerations: s.Tolerations, SchedulingGates: s.SchedulingGates}
		case "Workload":
			k := m.Metadata.Namespace + "/" + m.Metadata.Name
			for _, c := range m.Status.Conditions {
				if c.Type == "Admitted" && c.Status == "True" {
					admitted[k] = true
				}
			}
			for _, r := range m.Metadata.OwnerReferences {
				if r.Kind == "Job" {
					owner[m.Metadata.Namespace+"/"+r.Name] = k
				}
			}
		}
	}
	for k, j := range jobs {
		j.Workload = owner[k]
		jobs[k] = j
	}
	return jobs, admitted
}
