/// The HTTP API's route table and its rules without a socket (404, 405,
/// the token, the loopback rule, a handler that throws), how requests reach
/// the engine's thread (EngineAccess), and where the token comes from.

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "tools/http/engine_access.h"
#include "tools/http/router.h"
#include "tools/http/server.h"
#include "tests/support/temp_dir.h"

namespace ballast::http {
namespace {

using testing::TempDir;

Router table(AuthPolicy auth) {
    Router router(std::move(auth));
    router.add("GET", "/healthz", Access::open, [](const Request&) { return json_response(200, {{"ok", true}}); });
    router.add("GET", "/v1/state", Access::read, [](const Request&) { return json_response(200, {{"state", 1}}); });
    router.add("POST", "/v1/brokers/{id}/drain", Access::write, [](const Request& r) {
        return json_response(200, {{"broker", r.params.at("id")}, {"reason", r.query.count("reason") ? r.query.at("reason") : ""}});
    });
    router.add("PUT", "/v1/state", Access::write, [](const Request&) -> Response { throw std::runtime_error("boom"); });
    return router;
}

Request request(std::string method, std::string path, std::string authorization = "") {
    Request r;
    r.method = std::move(method);
    r.path = std::move(path);
    r.authorization = std::move(authorization);
    r.remote_address = "127.0.0.1";
    return r;
}

Json body(const Response& r) { return Json::parse(r.body); }

TEST(HttpRouter, RoutesByMethodAndPathAndCapturesTheirParameters) {
    const Router router = table({});
    Response r = router.dispatch(request("POST", "/v1/brokers/7/drain"));
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(body(r).at("broker"), "7");
    // A trailing slash is the same path.
    EXPECT_EQ(router.dispatch(request("GET", "/v1/state/")).status, 200);
}

TEST(HttpRouter, AnUnknownPathIs404NamingTheRoutesAndAWrongMethod405WithAllow) {
    const Router router = table({});
    Response missing = router.dispatch(request("GET", "/v1/nothing"));
    EXPECT_EQ(missing.status, 404);
    EXPECT_EQ(body(missing).at("error"), "not_found");
    EXPECT_NE(body(missing).at("message").get<std::string>().find("GET /v1/state"), std::string::npos);
    EXPECT_EQ(router.dispatch(request("POST", "/v1/brokers/7")).status, 404);  // too short for the pattern

    Response wrong = router.dispatch(request("DELETE", "/v1/state"));
    EXPECT_EQ(wrong.status, 405);
    EXPECT_EQ(wrong.headers.at("Allow"), "GET, PUT");
    EXPECT_EQ(body(wrong).at("message"), "/v1/state takes GET, PUT, not DELETE");
}

TEST(HttpRouter, AHandlerThatThrowsIs500NamingTheRequest) {
    const Router router = table({});
    Response r = router.dispatch(request("PUT", "/v1/state"));
    EXPECT_EQ(r.status, 500);
    EXPECT_EQ(body(r).at("message"), "PUT /v1/state: boom");
}

TEST(HttpAuth, WithATokenEveryRouteButTheProbesNeedsIt) {
    const Router router = table({"s3cret", /*loopback_listener=*/false});
    EXPECT_EQ(router.dispatch(request("GET", "/healthz")).status, 200);

    Response none = router.dispatch(request("GET", "/v1/state"));
    EXPECT_EQ(none.status, 401);
    EXPECT_EQ(none.headers.at("WWW-Authenticate"), "Bearer realm=\"ballast\"");
    EXPECT_NE(body(none).at("message").get<std::string>().find("Authorization: Bearer TOKEN"), std::string::npos);

    Response wrong = router.dispatch(request("GET", "/v1/state", "Bearer s3cre"));
    EXPECT_EQ(wrong.status, 401);
    EXPECT_EQ(body(wrong).at("message"), "the bearer token is not this API's");
    EXPECT_EQ(body(router.dispatch(request("GET", "/v1/state", "Basic czNjcmV0"))).at("message"),
              "the Authorization header is not 'Bearer TOKEN'");

    EXPECT_EQ(router.dispatch(request("GET", "/v1/state", "Bearer s3cret")).status, 200);
    // Beyond loopback, a write with the token goes through.
    EXPECT_EQ(router.dispatch(request("POST", "/v1/brokers/1/drain", "Bearer s3cret")).status, 200);
}

TEST(HttpAuth, WithoutATokenWritesAreForLoopbackListenersOnly) {
    const Router loopback = table({"", true});
    EXPECT_EQ(loopback.dispatch(request("GET", "/v1/state")).status, 200);
    EXPECT_EQ(loopback.dispatch(request("POST", "/v1/brokers/1/drain")).status, 200);

    const Router open = table({"", false});
    EXPECT_EQ(open.dispatch(request("GET", "/v1/state")).status, 200);
    Response refused = open.dispatch(request("POST", "/v1/brokers/1/drain"));
    EXPECT_EQ(refused.status, 403);
    EXPECT_EQ(body(refused).at("error"), "forbidden");
    EXPECT_NE(body(refused).at("message").get<std::string>().find("set ballast.http.auth.token"), std::string::npos);
    // A wrong method is still 405 first: the route's rules come with the route.
    EXPECT_EQ(open.dispatch(request("GET", "/v1/brokers/1/drain")).status, 405);
}

TEST(HttpAuth, SecretsCompareWholly) {
    EXPECT_TRUE(same_secret("abc", "abc"));
    EXPECT_FALSE(same_secret("abc", "abd"));
    EXPECT_FALSE(same_secret("abc", "abcd"));
    EXPECT_FALSE(same_secret("", "a"));
    EXPECT_TRUE(same_secret("", ""));
}

TEST(HttpEngineAccess, OwnerThreadWorkRunsOnTheOwnersThreadBetweenSteps) {
    EngineAccess access(EngineAccess::Mode::owner_thread);
    auto* engine = reinterpret_cast<actors::Engine*>(0x1000);  // handed on, never used here
    std::thread::id ran_on;
    int64_t time_seen = -1;
    std::thread caller([&] {
        const events::Status s = access.call(
            [&](actors::Engine* e, int64_t now_ms) {
                EXPECT_EQ(e, engine);
                ran_on = std::this_thread::get_id();
                time_seen = now_ms;
            },
            5000);
        EXPECT_TRUE(s.ok()) << s.error().to_string();
    });
    std::atomic<bool> stop{false};
    std::thread stopper([&] {
        caller.join();
        stop = true;
    });
    access.serve_until(*engine, 42'000, std::chrono::steady_clock::now() + std::chrono::seconds(10), [&] { return stop.load(); });
    stopper.join();
    EXPECT_EQ(ran_on, std::this_thread::get_id());
    EXPECT_EQ(time_seen, 42'000);
}

TEST(HttpEngineAccess, WorkNotTakenInTimeNeverRunsAndAClosedAccessRefuses) {
    EngineAccess access(EngineAccess::Mode::owner_thread);
    bool ran = false;
    const events::Status late = access.call([&](actors::Engine*, int64_t) { ran = true; }, 50);
    ASSERT_FALSE(late.ok());
    EXPECT_NE(late.error().message.find("did not take the request within 50 ms"), std::string::npos);
    access.serve_until(*reinterpret_cast<actors::Engine*>(0x1000), 0, std::chrono::steady_clock::now());
    EXPECT_FALSE(ran) << "abandoned work ran after its caller returned";

    access.close("the simulation has ended");
    const events::Status closed = access.call([&](actors::Engine*, int64_t) { ran = true; }, 50);
    ASSERT_FALSE(closed.ok());
    EXPECT_EQ(closed.error().message, "the simulation has ended");
    EXPECT_FALSE(ran);
}

TEST(HttpEngineAccess, AnyThreadWorkRunsOnTheCallersThreadWithTheAttachedEngine) {
    EngineAccess access(EngineAccess::Mode::any_thread, [] { return int64_t{7}; });
    actors::Engine* seen = reinterpret_cast<actors::Engine*>(0x1);
    ASSERT_TRUE(access.call([&](actors::Engine* e, int64_t now_ms) {
                          seen = e;
                          EXPECT_EQ(now_ms, 7);
                      },
                      10)
                    .ok());
    EXPECT_EQ(seen, nullptr);  // none attached yet
    auto* engine = reinterpret_cast<actors::Engine*>(0x2000);
    access.attach(engine);
    ASSERT_TRUE(access.call([&](actors::Engine* e, int64_t) { seen = e; }, 10).ok());
    EXPECT_EQ(seen, engine);
    access.set_readiness({"single", true, "leads alone"});
    EXPECT_TRUE(access.readiness().ready);
}

TEST(HttpToken, ComesFromTheSettingOrTheFirstLineOfItsFile) {
    TempDir dir;
    events::Config config = events::Config::defaults();
    EXPECT_EQ(*configured_token(config), "");
    ASSERT_TRUE(config.apply_override("ballast.http.auth.token=abc").ok());
    EXPECT_EQ(*configured_token(config), "abc");

    const std::string file = dir / "token";
    std::ofstream(file) << "from-file \nsecond line\n";
    ASSERT_TRUE(config.apply_override("ballast.http.auth.token.file=" + file).ok());
    EXPECT_NE(configured_token(config).error().message.find("both set: give one"), std::string::npos);
    ASSERT_TRUE(config.apply_override("ballast.http.auth.token=").ok());
    EXPECT_EQ(*configured_token(config), "from-file");

    std::ofstream(file, std::ios::trunc) << "\n";
    EXPECT_NE(configured_token(config).error().message.find("its first line holds no token"), std::string::npos);
    ASSERT_TRUE(config.apply_override("ballast.http.auth.token.file=" + (dir / "missing")).ok());
    EXPECT_NE(configured_token(config).error().message.find("missing"), std::string::npos);
}

}  // namespace
}  // namespace ballast::http
