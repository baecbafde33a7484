#pragma once

/// The eligible brokers ordered by one value (network in or out usage, a
/// replica or leader count), ties by broker index: PlanningState's ordered
/// indexes. Private to goals/.
///
/// A sorted vector with each broker's position in it. Why not a std::set:
/// every applied or undone action changes the keys of two brokers in up to
/// four indexes, and a plan applies and takes back far more actions than it
/// keeps (a leadership chain that its guards turn down is applied, judged
/// and undone). One action moves a broker past the few brokers it
/// overtakes, so shifting them costs a few comparisons, where a tree walks
/// and rebalances on the erase and again on the insert.
/// Iterating is a walk over contiguous pairs. Brokers are few (hundreds), so
/// a build sorts them once.
///
/// The order is the std::set<std::pair<Key, uint32_t>> order exactly: keys
/// ascending, then broker index (keys are finite: check_input refuses
/// non-finite loads). Entries shift when a key changes, so a caller must
/// not go on iterating after an action it applied (every goal collects what
/// it needs, or stops at the action).

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <utility>
#include <vector>

namespace ballast::goals {

template <class Key>
class BrokerOrder {
public:
    using value_type = std::pair<Key, uint32_t>;
    using const_iterator = typename std::vector<value_type>::const_iterator;
    using const_reverse_iterator = typename std::vector<value_type>::const_reverse_iterator;

    /// Empties the order; brokers are indexes below `broker_count`.
    void reset(uint32_t broker_count) {
        _entries.clear();
        _position.assign(broker_count, not_in_order);
    }
    /// Adds broker `b`, not in the order yet; `sort` must follow the adds.
    void add(Key key, uint32_t b) {
        assert(b < _position.size() && _position[b] == not_in_order);
        _entries.emplace_back(key, b);
        _position[b] = 0;
    }
    /// Sorts what `add` collected.
    void sort() {
        std::sort(_entries.begin(), _entries.end(), before);
        for (uint32_t i = 0; i < _entries.size(); i++) _position[_entries[i].second] = i;
    }
    /// Gives broker `b` (in the order) the key `key`, moving it to its place.
    void rekey(uint32_t b, Key key) {
        assert(b < _position.size() && _position[b] != not_in_order);
        uint32_t i = _position[b];
        const value_type moved{key, b};
        if (before(moved, _entries[i])) {
            for (; i > 0 && before(moved, _entries[i - 1]); i--) place(i, _entries[i - 1]);
        } else {
            for (; i + 1 < _entries.size() && before(_entries[i + 1], moved); i++) place(i, _entries[i + 1]);
        }
        place(i, moved);
    }

    const_iterator begin() const { return _entries.begin(); }
    const_iterator end() const { return _entries.end(); }
    const_reverse_iterator rbegin() const { return _entries.rbegin(); }
    const_reverse_iterator rend() const { return _entries.rend(); }
    bool empty() const { return _entries.empty(); }
    size_t size() const { return _entries.size(); }

private:
    static constexpr uint32_t not_in_order = UINT32_MAX;

    /// std::pair's order, written out: keys are never NaN.
    static bool before(const value_type& a, const value_type& b) {
        return a.first < b.first || (a.first == b.first && a.second < b.second);
    }
    void place(uint32_t i, const value_type& entry) {
        _entries[i] = entry;
        _position[entry.second] = i;
    }

    std::vector<value_type> _entries;
    std::vector<uint32_t> _position;  // per broker index: where it stands, or not_in_order
};

}  // namespace ballast::goals
