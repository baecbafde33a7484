#pragma once

/// Direct RocksDB access to a closed journal, for tests that damage it the
/// way a bad disk or a bad copy would: change a record's bytes, delete one,
/// or put one under another key. The journal must not be open elsewhere.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/db.h>

#include "store/journal_record.h"

namespace ballast::testing {

class RawJournal {
public:
    explicit RawJournal(const std::string& path) {
        rocksdb::Options options;
        const std::vector<rocksdb::ColumnFamilyDescriptor> families = {
            {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()},
            {"snapshots", rocksdb::ColumnFamilyOptions()},
        };
        rocksdb::DB* db = nullptr;
        _status = rocksdb::DB::Open(options, path, families, &_handles, &db);
        _db.reset(db);
    }
    ~RawJournal() {
        for (auto* handle : _handles) _db->DestroyColumnFamilyHandle(handle);
    }

    bool ok() const { return _status.ok(); }
    std::string status() const { return _status.ToString(); }

    std::string get(uint64_t seq, bool snapshot = false) {
        std::string value;
        _db->Get(rocksdb::ReadOptions(), family(snapshot), store::key_string(seq), &value);
        return value;
    }
    void put(uint64_t seq, const std::string& value, bool snapshot = false) {
        rocksdb::WriteOptions sync;
        sync.sync = true;
        _db->Put(sync, family(snapshot), store::key_string(seq), value);
    }
    void remove(uint64_t seq, bool snapshot = false) {
        rocksdb::WriteOptions sync;
        sync.sync = true;
        _db->Delete(sync, family(snapshot), store::key_string(seq));
    }
    /// Applies `change` to the stored value of `seq` and writes it back.
    void mutate(uint64_t seq, const std::function<void(std::string&)>& change,
                bool snapshot = false) {
        std::string value = get(seq, snapshot);
        change(value);
        put(seq, value, snapshot);
    }

    /// The same by raw key in the snapshots family (a snapshot's parts are
    /// under seq + part index: store::snapshot_part_key).
    std::string get_snapshot_key(const std::string& key) {
        std::string value;
        _db->Get(rocksdb::ReadOptions(), family(true), key, &value);
        return value;
    }
    void put_snapshot_key(const std::string& key, const std::string& value) {
        rocksdb::WriteOptions sync;
        sync.sync = true;
        _db->Put(sync, family(true), key, value);
    }
    void remove_snapshot_key(const std::string& key) {
        rocksdb::WriteOptions sync;
        sync.sync = true;
        _db->Delete(sync, family(true), key);
    }

private:
    rocksdb::ColumnFamilyHandle* family(bool snapshot) { return _handles[snapshot ? 1 : 0]; }

    rocksdb::Status _status;
    std::vector<rocksdb::ColumnFamilyHandle*> _handles;
    std::unique_ptr<rocksdb::DB> _db;
};

}  // namespace ballast::testing
