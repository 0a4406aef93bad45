{{/* Base name of the namespaced objects and of the ServiceAccount. */}}
{{- define "dha.fullname" -}}
{{- default "db-autoscaler" .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels on every object; the selector labels are a stable subset. */}}
{{- define "dha.labels" -}}
{{ include "dha.selectorLabels" . }}
app.kubernetes.io/name: db-autoscaler
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "dha.selectorLabels" -}}
app: {{ include "dha.fullname" . }}
{{- end -}}

{{/* The image reference: a digest pins it; otherwise the tag, defaulting to appVersion. */}}
{{- define "dha.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ default .Chart.AppVersion .Values.image.tag }}
{{- end -}}
{{- end -}}

{{/* Names derived from the base name, in one place so templates and tests agree. */}}
{{- define "dha.certSecret" -}}{{ include "dha.fullname" . }}-cert{{- end -}}
{{- define "dha.caName" -}}{{ include "dha.fullname" . }}-ca{{- end -}}
{{- define "dha.metricsService" -}}{{ include "dha.fullname" . }}-metrics{{- end -}}
{{- define "dha.pluginConfigMap" -}}{{ include "dha.fullname" . }}-plugin-config{{- end -}}
{{- define "dha.serviceDNS" -}}{{ include "dha.fullname" . }}.{{ .Release.Namespace }}.svc{{- end -}}

{{/* Identities that may change replicas of managed objects (webhook allow-list). */}}
{{- define "dha.operatorUsername" -}}
system:serviceaccount:{{ .Release.Namespace }}:{{ include "dha.fullname" . }}
{{- end -}}
{{- define "dha.appsApiUsername" -}}
system:serviceaccount:{{ .Values.appsApi.namespace }}:{{ .Values.appsApi.serviceAccount }}
{{- end -}}

{{/* Names of all plugins to load: the bundled selection, then the extra images. */}}
{{- define "dha.pluginNames" -}}
{{- $names := list -}}
{{- range .Values.plugins.enabled }}{{ $names = append $names . }}{{ end -}}
{{- range .Values.plugins.extra }}{{ $names = append $names .name }}{{ end -}}
{{- join "," $names -}}
{{- end -}}

{{/* Where init containers put the extra plugins; passed as a second --plugin-dir. */}}
{{- define "dha.extraPluginDir" -}}/var/lib/db-autoscaler/extra-plugins{{- end -}}
{{- define "dha.pluginConfigDir" -}}/etc/db-autoscaler{{- end -}}
{{- define "dha.certDir" -}}/tmp/k8s-webhook-server/serving-certs{{- end -}}

{{/*
Fails the render on combinations that would install a broken operator; the schema cannot
express them.
*/}}
{{- define "dha.validate" -}}
{{- if and (gt (int .Values.replicas) 1) (not .Values.leaderElection.enabled) -}}
{{- fail "replicas > 1 requires leaderElection.enabled: two replicas without a lease would both reconcile and patch" -}}
{{- end -}}
{{- $seen := dict -}}
{{- range .Values.plugins.enabled -}}
{{- if hasKey $seen . -}}{{- fail (printf "plugins.enabled lists %q twice" .) -}}{{- end -}}
{{- $_ := set $seen . true -}}
{{- end -}}
{{- range .Values.plugins.extra -}}
{{- if hasKey $seen .name -}}{{- fail (printf "plugins.extra name %q is already loaded (bundled or listed twice)" .name) -}}{{- end -}}
{{- $_ := set $seen .name true -}}
{{- end -}}
{{- range $name, $cfg := .Values.plugins.config -}}
{{- if not (hasKey $seen $name) -}}{{- fail (printf "plugins.config has an entry for %q, which is not in plugins.enabled or plugins.extra" $name) -}}{{- end -}}
{{- end -}}
{{- end -}}

{{/* Restricted pod security standard, shared by the operator and the plugin init containers. */}}
{{- define "dha.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop:
    - ALL
seccompProfile:
  type: RuntimeDefault
{{- end -}}
