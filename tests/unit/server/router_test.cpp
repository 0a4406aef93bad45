#include "dha/server/http.hpp"
#include "dha/server/standard_routes.hpp"
#include "dha/telemetry/registry.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace dha::server {
namespace {

Request get(std::string path) {
  Request r;
  r.method = "GET";
  r.path = r.target = std::move(path);
  return r;
}

TEST(Router, RoutesByExactPath) {
  Router router;
  router.handle("/a", [](const Request&) { return Response::text(200, "a"); });
  EXPECT_EQ(router.dispatch(get("/a")).body, "a");
  EXPECT_EQ(router.dispatch(get("/a/")).status, 404);
  EXPECT_EQ(router.dispatch(get("/")).status, 404);
}

TEST(Router, RejectsBadRegistrations) {
  Router router;
  router.handle("/a", [](const Request&) { return Response{}; });
  EXPECT_THROW(router.handle("/a", [](const Request&) { return Response{}; }), std::invalid_argument);
  EXPECT_THROW(router.handle("a", [](const Request&) { return Response{}; }), std::invalid_argument);
  EXPECT_THROW(router.handle("/b", Handler{}), std::invalid_argument);
}

TEST(Router, HandlerExceptionBecomes500) {
  Router router;
  router.handle("/boom", [](const Request&) -> Response { throw std::runtime_error("kaput"); });
  router.handle("/int", [](const Request&) -> Response { throw 1; });
  auto r = router.dispatch(get("/boom"));
  EXPECT_EQ(r.status, 500);
  EXPECT_NE(r.body.find("kaput"), std::string::npos);
  EXPECT_EQ(router.dispatch(get("/int")).status, 500);
}

TEST(Request, HeaderLookupIsCaseInsensitiveAndBearerIsParsed) {
  Request r;
  r.headers = {{"content-type", "application/json"}, {"AUTHORIZATION", "bearer  tok-1 "}};
  EXPECT_EQ(r.header("Content-Type"), "application/json");
  EXPECT_EQ(r.header("X-Missing"), "");
  EXPECT_EQ(r.bearer_token(), "tok-1");
  r.headers = {{"Authorization", "Basic abc"}};
  EXPECT_EQ(r.bearer_token(), "");
}

TEST(StandardRoutes, HealthAndReadiness) {
  Router router;
  bool ready = false;
  mount_health_probes(router, [&] { return ready; });
  EXPECT_EQ(router.dispatch(get("/healthz")).status, 200);
  EXPECT_EQ(router.dispatch(get("/readyz")).status, 503);
  ready = true;
  EXPECT_EQ(router.dispatch(get("/readyz")).status, 200);
}

TEST(StandardRoutes, MetricsExposesTheRegistry) {
  telemetry::Registry registry;
  registry.counter("hits_total", "Hits.").with({})->inc();
  Router router;
  mount_metrics(router, registry);
  auto r = router.dispatch(get("/metrics"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(r.body.find("hits_total 1\n"), std::string::npos);
  auto post = get("/metrics");
  post.method = "POST";
  EXPECT_EQ(router.dispatch(post).status, 405);
}

}  // namespace
}  // namespace dha::server
