#pragma once

/// What an actor's failure says. CAF's default for an exception thrown in a
/// handler ends the actor with a bare `runtime_error`, the exception's text
/// printed aside; the engine watches every actor (`Engine::start`) and stops
/// with the reason it ended with, so the reason must carry the text.

#include <exception>
#include <string>

#include <caf/error.hpp>
#include <caf/scheduled_actor.hpp>
#include <caf/sec.hpp>

namespace ballast::actors {

/// Called first in an actor's behaviour function: an exception thrown in
/// any of its handlers ends it with `runtime_error` and the exception's text.
inline void end_with_exception_text(caf::scheduled_actor* self) {
    self->set_exception_handler([](caf::scheduled_actor*, std::exception_ptr& thrown) -> caf::error {
        try {
            std::rethrow_exception(thrown);
        } catch (const std::exception& e) {
            return caf::make_error(caf::sec::runtime_error, std::string("exception: ") + e.what());
        } catch (...) {
            return caf::make_error(caf::sec::runtime_error, std::string("an exception that is not a std::exception"));
        }
    });
}

}  // namespace ballast::actors
