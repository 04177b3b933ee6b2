{{/* Name of the chart, overridable with nameOverride. */}}
{{- define "petname-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Prefix of every object name: fullnameOverride, else release-chart (or release alone when it already contains the chart name). */}}
{{- define "petname-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Labels on every object. */}}
{{- define "petname-operator.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "petname-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Labels that select the operator pods. */}}
{{- define "petname-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "petname-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The ServiceAccount the operator runs as. */}}
{{- define "petname-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "petname-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The namespace watched when scope is namespace. */}}
{{- define "petname-operator.watchNamespace" -}}
{{- default .Release.Namespace .Values.watchNamespace }}
{{- end }}

{{/*
The rules the operator needs, derived from operator/: informers list and watch jobs, pods and
services; the reconciler creates pods and services, reads one back on a 409 conflict, deletes
pods, replaces job status, deletes jobs whose ttlSecondsAfterFinished passed, creates Events
on jobs and sweeps and patches the count of a repeated one, and gets/creates the PodGroup of a gang-scheduled job (coscheduling or Volcano);
with networkPolicy.jobs.enabled it watches and creates each job's NetworkPolicy (get: one that
exists under the job's name on a 409, to see whether the job controls it; no delete: the
garbage collector removes it with the job).
tests/charts/template_test.py keeps this list exact.
*/}}
{{- define "petname-operator.rules" -}}
- apiGroups: ["petname.dev"]
  resources: ["petnametrainingjobs"]
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
- apiGroups: ["petname.dev"]
  resources: ["petnametrainingjobs/status"]
  verbs: ["update"]
- apiGroups: ["petname.dev"]
  resources: ["petnametrainingsweeps"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["petname.dev"]
  resources: ["petnametrainingsweeps/status"]
  verbs: ["update"]
- apiGroups: ["petname.dev"]
  resources: ["petnametrainingsweeps/finalizers"]
  verbs: ["update"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "create", "delete"]
- apiGroups: [""]
  resources: ["services"]
  verbs: ["get", "list", "watch", "create"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
# Each job's rendezvous Secret <job>-rendezvous: create before its pods (the garbage collector
# deletes it with the job). get: when one exists already while the job has no pods, the operator
# reads its metadata only (PartialObjectMetadata: owner references, uid; it never asks for the
# data) to see whether the job controls it; delete: then it deletes that one (on the condition
# that its uid is still the one read), since whoever made it may know its value, and creates a
# fresh one; one the job does not control is left alone. No list or watch: those would read
# every Secret in scope (RBAC cannot select by label or owner, and resourceNames cannot name the
# Secrets of jobs yet to come). get, like the pods the operator creates (a pod can mount any
# Secret of its namespace), could reach a Secret's data: the operator's code asks for none.
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "create", "delete"]
# update: a PodGroup's minMember follows the job's admitted replicas (Kueue partial admission).
- apiGroups: ["scheduling.x-k8s.io", "scheduling.volcano.sh"]
  resources: ["podgroups"]
  verbs: ["get", "create", "update"]
{{- if .Values.networkPolicy.jobs.enabled }}
- apiGroups: ["networking.k8s.io"]
  resources: ["networkpolicies"]
  verbs: ["get", "list", "watch", "create"]
{{- end }}
{{- end }}

{{/*
The NetworkPolicyPeer of the Prometheus both policies admit to the metrics ports:
networkPolicy.prometheus.podLabels in networkPolicy.prometheus.namespace (the release namespace
when empty). Empty when networkPolicy.prometheus.enabled is false.
*/}}
{{- define "petname-operator.prometheusPeer" -}}
{{- with .Values.networkPolicy.prometheus }}
{{- if .enabled }}
{{- toJson (dict "namespaceSelector" (dict "matchLabels" (dict "kubernetes.io/metadata.name" (default $.Release.Namespace .namespace))) "podSelector" (dict "matchLabels" .podLabels)) }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The peers --network-policy-metrics-from admits to the rank pods' metrics ports: the operator's
own pods (progress scrape) and, when enabled, the Prometheus of networkPolicy.prometheus.
*/}}
{{- define "petname-operator.metricsFrom" -}}
{{- $peers := list (dict "namespaceSelector" (dict "matchLabels" (dict "kubernetes.io/metadata.name" .Release.Namespace)) "podSelector" (dict "matchLabels" (include "petname-operator.selectorLabels" . | fromYaml))) }}
{{- with include "petname-operator.prometheusPeer" . }}
{{- $peers = append $peers (fromJson .) }}
{{- end }}
{{- toJson $peers }}
{{- end }}

{{/*
With kueue.enabled (--kueue): the operator creates, watches, deletes and finishes the Kueue Workload
of each queued job (namespaced, in the operator's Role or ClusterRole), and reads the
ResourceFlavors of an admission (node labels and tolerations for the rank pods) and the
WorkloadPriorityClasses of a job's priority (cluster-scoped: kueueClusterRules, in the ClusterRole,
or with scope namespace in a ClusterRole <fullname>-kueue of their own).
tests/charts/template_test.py keeps these lists exact.
*/}}
{{- define "petname-operator.kueueRules" -}}
# update: removing Kueue's finalizer kueue.x-k8s.io/resource-in-use once the job's pods are gone,
# and a Workload's spec brought in line with its edited job; delete: replacing a Workload that
# holds quota and no longer matches its job.
- apiGroups: ["kueue.x-k8s.io"]
  resources: ["workloads"]
  verbs: ["get", "list", "watch", "create", "update", "delete"]
- apiGroups: ["kueue.x-k8s.io"]
  resources: ["workloads/status"]
  verbs: ["get", "patch", "update"]
# get: whether the job's namespace has a LocalQueue named default (Kueue's queue defaulting).
- apiGroups: ["kueue.x-k8s.io"]
  resources: ["localqueues"]
  verbs: ["get"]
{{- end }}

{{- define "petname-operator.kueueClusterRules" -}}
- apiGroups: ["kueue.x-k8s.io"]
  resources: ["resourceflavors"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["kueue.x-k8s.io"]
  resources: ["workloadpriorityclasses"]
  verbs: ["get", "list", "watch"]
# The Workload's priority from the rank pods' PriorityClass, or the globalDefault one (list).
- apiGroups: ["scheduling.k8s.io"]
  resources: ["priorityclasses"]
  verbs: ["get", "list"]
# A namespace's labels, for Kueue's managedJobsNamespaceSelector.
- apiGroups: [""]
  resources: ["namespaces"]
  verbs: ["get"]
{{- end }}

{{/* Leader election is on when asked for, and always with more than one replica. */}}
{{- define "petname-operator.leaderElect" -}}
{{- if or .Values.leaderElection.enabled (gt (int .Values.replicas) 1) }}true{{ end }}
{{- end }}
