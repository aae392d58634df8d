// SPDX-License-Identifier: MIT
#pragma once

#include <list>
#include <memory>
#include <mutex>
#include <optional>

namespace stallwatch::collector::detail {

// The HTTP connections that wait for a request (a new connection before its
// first byte, a keep-alive one between requests), oldest first, so that the
// listener can close the oldest of them to admit a new connection when the
// server is at http.max_connections. A connection that is reading, answering
// or upgraded to a WebSocket is never listed.
//
// Threads: any; every call takes the one mutex. Holds its members weakly: a
// member destroyed while listed (the server stopping) is skipped and
// forgotten. It only picks the member: closing it is the member's evict().
class IdleConnections {
 public:
  class Member {
   public:
    virtual ~Member() = default;
    // Closes the connection on its own strand. Called from the listener's
    // thread after the member was claimed.
    virtual void evict() = 0;

   private:
    friend class IdleConnections;
    std::optional<std::list<std::weak_ptr<Member>>::iterator> entry_;
  };

  // `member` now waits for a request: the newest idle connection.
  void enter(const std::shared_ptr<Member>& member);
  // `member` no longer waits (bytes arrived, a timeout or an error). False
  // when it was claimed for eviction in the meantime: it must close.
  bool leave(Member& member);
  // Removes the oldest idle connection still alive from the list and
  // returns it; null when none waits.
  std::shared_ptr<Member> claim_oldest();

 private:
  std::mutex mutex_;
  std::list<std::weak_ptr<Member>> members_;
};

}  // namespace stallwatch::collector::detail
