#pragma once

#include <cstdint>
#include <string>

namespace dha::optest {

// The rendered chart's ValidatingWebhookConfiguration (JSON) with each webhook's Service
// reference replaced by the operator's URL on loopback and `ca_pem` as its CA bundle, as
// cert-manager or the chart's own certificates would set it: so an API server's own webhook
// calls reach an operator running as a local process. Throws when the chart renders none.
std::string chart_webhooks_on_loopback(const std::string& chart, std::uint16_t port, const std::string& ca_pem);

}  // namespace dha::optest
