// Katib's File metrics collector (kubeflow/katib v0.19.0, the version go.mod pins) parses the
// metrics file a real `petname train --katib-metrics-file` writes: CollectObservationLog, the
// function the collector sidecar calls once the training process ends, returns one observation
// of the objective per epoch with the values of the checkpoint's metrics.jsonl, and real
// timestamps. It also shows why the trainer writes that file: metrics.jsonl (numbers) gives Katib
// no observation at all.
//
// Run by tests/katib/test.sh with PETNAME_BIN (the petname binary) and PETNAME_TEST_DATA (the
// Seattle table).
package katib_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	commonv1beta1 "github.com/kubeflow/katib/pkg/apis/controller/common/v1beta1"
	"github.com/kubeflow/katib/pkg/controller.v1beta1/consts"
	filemc "github.com/kubeflow/katib/pkg/metricscollector/v1beta1/file-metricscollector"
)

const epochs = 3

// petname returns the petname binary and the training data the test script passes.
func petname(t *testing.T) (bin, data string) {
	t.Helper()
	bin, data = os.Getenv("PETNAME_BIN"), os.Getenv("PETNAME_TEST_DATA")
	if bin == "" || data == "" {
		t.Fatal("PETNAME_BIN and PETNAME_TEST_DATA must be set (tests/katib/test.sh sets them)")
	}
	return bin, data
}

// train runs a small `petname train` that checkpoints to dir/ckpt and writes Katib's file to
// dir/katib/metrics.json (a folder of its own, as Katib mounts an emptyDir there), named by
// --katib-metrics-file or, with viaEnv, by $PETNAME_KATIB_METRICS_FILE (what a job's spec.env
// sets); it returns both paths.
func train(t *testing.T, viaEnv bool) (katibFile, metricsLog string) {
	t.Helper()
	bin, data := petname(t)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "katib"), 0o755); err != nil {
		t.Fatal(err)
	}
	katibFile = filepath.Join(dir, "katib", "metrics.json")
	ckpt := filepath.Join(dir, "ckpt")
	cmd := exec.Command(bin, "train", "--data", data, "--max-names", "200", "--threads", "1",
		"--batch-size", "128", "--epochs", strconv.Itoa(epochs), "--checkpoint-dir", ckpt)
	if viaEnv {
		cmd.Env = append(os.Environ(), "PETNAME_KATIB_METRICS_FILE="+katibFile)
	} else {
		cmd.Args = append(cmd.Args, "--katib-metrics-file", katibFile)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("petname train: %v\n%s", err, out)
	}
	return katibFile, filepath.Join(ckpt, "metrics.jsonl")
}

// validationLosses reads validation_loss of every line of the checkpoint's metrics.jsonl.
func validationLosses(t *testing.T, path string) []float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var losses []float64
	for s := bufio.NewScanner(f); s.Scan(); {
		var line struct {
			ValidationLoss float64 `json:"validation_loss"`
		}
		if err := json.Unmarshal(s.Bytes(), &line); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		losses = append(losses, line.ValidationLoss)
	}
	return losses
}

func TestCollectorReadsTheObjectiveOfEveryEpoch(t *testing.T) {
	katibFile, metricsLog := train(t, false)
	metrics := []string{"validationLoss", "trainLoss", "validationAccuracy"}
	obs, err := filemc.CollectObservationLog(katibFile, metrics, nil, commonv1beta1.JsonFormat)
	if err != nil {
		t.Fatalf("CollectObservationLog: %v", err)
	}
	want := validationLosses(t, metricsLog)
	if len(want) != epochs {
		t.Fatalf("metrics.jsonl has %d lines, want %d", len(want), epochs)
	}
	counts := map[string]int{}
	var losses []float64
	for _, l := range obs.MetricLogs {
		counts[l.Metric.Name]++
		if l.Metric.Value == consts.UnavailableMetricValue {
			t.Fatalf("Katib found no %s in %s", l.Metric.Name, katibFile)
		}
		if _, err := strconv.ParseFloat(l.Metric.Value, 64); err != nil {
			t.Errorf("%s = %q is not a number: %v", l.Metric.Name, l.Metric.Value, err)
		}
		ts, err := time.Parse(time.RFC3339Nano, l.TimeStamp)
		if err != nil || ts.Before(time.Now().Add(-time.Hour)) {
			t.Errorf("%s timestamp %q is not the time of the epoch (err %v)", l.Metric.Name, l.TimeStamp, err)
		}
		if l.Metric.Name == "validationLoss" {
			v, _ := strconv.ParseFloat(l.Metric.Value, 64)
			losses = append(losses, v)
		}
	}
	for _, m := range metrics {
		if counts[m] != epochs {
			t.Errorf("%d observations of %s, want %d (one per epoch): %v", counts[m], m, epochs, obs.MetricLogs)
		}
	}
	for i := range losses {
		if i < len(want) && losses[i] != want[i] {
			t.Errorf("epoch %d: Katib read validationLoss %v, metrics.jsonl has %v", i+1, losses[i], want[i])
		}
	}
}

// The environment variable names the file as the flag does; the checkpoint's metrics.jsonl of
// the same run (numbers, not strings) gives Katib only its "unavailable" placeholder.
func TestEnvironmentNamesTheFileAndMetricsJsonlGivesKatibNothing(t *testing.T) {
	katibFile, metricsLog := train(t, true)
	obs, err := filemc.CollectObservationLog(katibFile, []string{"validationLoss"}, nil, commonv1beta1.JsonFormat)
	if err != nil {
		t.Fatalf("CollectObservationLog: %v", err)
	}
	if len(obs.MetricLogs) != epochs || obs.MetricLogs[0].Metric.Value == consts.UnavailableMetricValue {
		t.Fatalf("want %d observations of validationLoss from $PETNAME_KATIB_METRICS_FILE, got %v", epochs, obs.MetricLogs)
	}
	obs, err = filemc.CollectObservationLog(metricsLog, []string{"validation_loss"}, nil, commonv1beta1.JsonFormat)
	if err != nil {
		t.Fatalf("CollectObservationLog: %v", err)
	}
	if len(obs.MetricLogs) != 1 || obs.MetricLogs[0].Metric.Value != consts.UnavailableMetricValue {
		t.Fatalf("Katib read numbers from metrics.jsonl (%v); then the separate file is not needed", obs.MetricLogs)
	}
}

// A metrics file in the checkpoint directory is refused before training: Katib's emptyDir over
// that directory would hide the checkpoints.
func TestMetricsFileInTheCheckpointDirectoryIsAUsageError(t *testing.T) {
	bin, data := petname(t)
	ckpt := t.TempDir()
	cmd := exec.Command(bin, "train", "--data", data, "--checkpoint-dir", ckpt,
		"--katib-metrics-file", filepath.Join(ckpt, "katib.json"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	exit, ok := err.(*exec.ExitError)
	if !ok || exit.ExitCode() != 2 {
		t.Fatalf("want exit status 2, got %v; stderr: %s", err, stderr.String())
	}
	want := "petname: error: --katib-metrics-file must not be in --checkpoint-dir"
	if !strings.HasPrefix(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 1 {
		t.Fatalf("want one line starting %q, got %q", want, stderr.String())
	}
}
