{{- define "mini.name" -}}{{ .Chart.Name }}-{{ .Release.Name }}{{- end -}}
{{- define "mini.loop" -}}{{ include "mini.loop" . }}{{- end -}}
