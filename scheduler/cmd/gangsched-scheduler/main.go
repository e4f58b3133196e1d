// Command gangsched-scheduler is a secondary Kubernetes scheduler that
// places PodGroups whole (gang scheduling, topology constraints,
// workload-aware preemption) with the gangsched library. It serves the pods
// whose spec.schedulerName is its configured name (default
// "gangsched-scheduler").
//
//	gangsched-scheduler [-config file] [-kubeconfig file]
//
// Without -kubeconfig it uses the in-cluster service account (a pod of the
// Deployment in deploy/). It serves /healthz and /readyz on the config's
// healthAddress and /metrics on its metricsAddress, logs JSON to stderr,
// and exits non-zero when the configuration is bad (the message names the
// field) or when it loses its leader lease.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/gangsched/gangsched/scheduler"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gangsched-scheduler:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("gangsched-scheduler", flag.ContinueOnError)
	configPath := fs.String("config", "", "GangSchedulerConfiguration file (YAML); empty means the defaults")
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file; empty means in-cluster configuration")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := scheduler.DefaultConfig()
	if *configPath != "" {
		var err error
		if cfg, err = scheduler.LoadConfig(*configPath); err != nil {
			return err
		}
	}
	rc, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return fmt.Errorf("-kubeconfig: %w", err)
	}
	rc.UserAgent = "gangsched-scheduler"
	client, err := kubernetes.NewForConfig(scheduler.RESTConfig(rc))
	if err != nil {
		return fmt.Errorf("-kubeconfig: %w", err)
	}
	dyn, err := dynamic.NewForConfig(rc) // CompositePodGroups, as JSON
	if err != nil {
		return fmt.Errorf("-kubeconfig: %w", err)
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	s, err := scheduler.New(client, cfg, scheduler.Options{Logger: log, Registerer: reg, Dynamic: dyn})
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	health := http.NewServeMux()
	health.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	health.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !s.Ready() {
			http.Error(w, "informers not synced, or not the leader", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	metrics := http.NewServeMux()
	metrics.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	for _, srv := range []struct {
		field, addr string
		h           http.Handler
	}{{"healthAddress", *cfg.HealthAddress, health}, {"metricsAddress", *cfg.MetricsAddress, metrics}} {
		if srv.addr == "" {
			continue
		}
		ln, err := net.Listen("tcp", srv.addr)
		if err != nil {
			return fmt.Errorf("config %s: %w", srv.field, err)
		}
		hs := &http.Server{Handler: srv.h, ReadHeaderTimeout: 10 * time.Second}
		go hs.Serve(ln)
		defer hs.Close()
	}

	host, _ := os.Hostname()
	err = scheduler.RunElected(ctx, s, host+"_"+uuid.NewString())
	if errors.Is(err, scheduler.ErrLostLease) {
		log.Error("lost the leader lease; exiting")
	}
	return err
}
