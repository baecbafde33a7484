#pragma once

/// Direct RocksDB access to a closed journal, for tests that damage it the
/// way a bad disk or a bad copy would: change a record's bytes, delete one,
/// or put one where another belongs. Events are addressed one by one inside
/// the runs that hold them (store/journal_record.h); the run around a
/// changed record is framed again, so the damage is the record's alone
/// unless `mutate_run` damages the framing. The journal must not be open
/// elsewhere.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include "store/journal_record.h"

namespace ballast::testing {

class RawJournal {
public:
    explicit RawJournal(const std::string& path) {
        rocksdb::Options options;
        std::vector<rocksdb::ColumnFamilyDescriptor> families = {
            {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()},
            {"snapshots", rocksdb::ColumnFamilyOptions()},
        };
        // The partition index, when the journal has one (every family must be opened).
        std::vector<std::string> existing;
        (void)rocksdb::DB::ListColumnFamilies(options, path, &existing);
        if (std::find(existing.begin(), existing.end(), "partition_index") != existing.end()) {
            families.emplace_back("partition_index", rocksdb::ColumnFamilyOptions());
        }
        rocksdb::DB* db = nullptr;
        _status = rocksdb::DB::Open(options, path, families, &_handles, &db);
        _db.reset(db);
    }
    ~RawJournal() {
        for (auto* handle : _handles) _db->DestroyColumnFamilyHandle(handle);
    }

    bool ok() const { return _status.ok(); }
    std::string status() const { return _status.ToString(); }

    /// An event's record (CRC + flatbuffer) from inside its run, or a
    /// snapshot's value stored under its seq alone; "" when there is none.
    std::string get(uint64_t seq, bool snapshot = false) {
        std::string value;
        if (snapshot) {
            _db->Get(rocksdb::ReadOptions(), family(true), store::key_string(seq), &value);
            return value;
        }
        Run run = run_of(seq);
        auto it = run.records.find(seq);
        return it == run.records.end() ? std::string() : it->second;
    }
    /// Replaces the record of event `seq` (which must exist) inside its run,
    /// framing the run again around it; a snapshot's value goes under the
    /// seq alone.
    void put(uint64_t seq, const std::string& value, bool snapshot = false) {
        if (snapshot) {
            _db->Put(sync(), family(true), store::key_string(seq), value);
            return;
        }
        Run run = run_of(seq);
        ASSERT_TRUE(run.records.count(seq)) << "no event " << seq << " to put over";
        run.records[seq] = value;
        write_back(run);
    }
    /// Removes event `seq` from its run: the run is split around the gap.
    void remove(uint64_t seq, bool snapshot = false) {
        if (snapshot) {
            _db->Delete(sync(), family(true), store::key_string(seq));
            return;
        }
        Run run = run_of(seq);
        run.records.erase(seq);
        write_back(run);
    }
    /// Applies `change` to the stored value of `seq` and writes it back.
    void mutate(uint64_t seq, const std::function<void(std::string&)>& change,
                bool snapshot = false) {
        std::string value = get(seq, snapshot);
        change(value);
        put(seq, value, snapshot);
    }
    /// Applies `change` to the raw value of the run that holds event `seq`
    /// (the framing around the records, store/journal_record.h).
    void mutate_run(uint64_t seq, const std::function<void(std::string&)>& change) {
        std::unique_ptr<rocksdb::Iterator> it(_db->NewIterator(rocksdb::ReadOptions(), family(false)));
        it->SeekForPrev(store::run_key(seq, UINT64_MAX));
        ASSERT_TRUE(it->Valid()) << "no run holds seq " << seq;
        const std::string key = it->key().ToString();
        std::string value = it->value().ToString();
        change(value);
        _db->Put(sync(), family(false), key, value);
    }
    /// Rewrites every run as one 8-byte key per event holding its record
    /// alone: the layout of journals written before runs.
    void to_key_per_event() {
        rocksdb::WriteBatch batch;
        std::unique_ptr<rocksdb::Iterator> it(_db->NewIterator(rocksdb::ReadOptions(), family(false)));
        for (it->SeekToFirst(); it->Valid(); it->Next()) {
            const std::string key = it->key().ToString();
            const std::string value = it->value().ToString();
            batch.Delete(family(false), key);
            store::RunCursor cursor = store::RunCursor::of(key, value);
            while (!cursor.done()) {
                uint64_t seq = 0;
                std::string_view record;
                ASSERT_TRUE(cursor.next(&seq, &record).ok());
                batch.Put(family(false), store::key_string(seq), rocksdb::Slice(record.data(), record.size()));
            }
        }
        _db->Write(sync(), &batch);
    }
    /// The key of every run, in order, as (first, last).
    std::vector<std::pair<uint64_t, uint64_t>> runs() {
        std::vector<std::pair<uint64_t, uint64_t>> out;
        std::unique_ptr<rocksdb::Iterator> it(_db->NewIterator(rocksdb::ReadOptions(), family(false)));
        for (it->SeekToFirst(); it->Valid(); it->Next()) {
            uint64_t first = 0;
            uint64_t last = 0;
            EXPECT_TRUE(store::decode_run_key(it->key().ToStringView(), &first, &last));
            out.emplace_back(first, last);
        }
        return out;
    }

    /// The same by raw key in the snapshots family (a snapshot's parts are
    /// under seq + part index: store::snapshot_part_key).
    std::string get_snapshot_key(const std::string& key) {
        std::string value;
        _db->Get(rocksdb::ReadOptions(), family(true), key, &value);
        return value;
    }
    void put_snapshot_key(const std::string& key, const std::string& value) {
        _db->Put(sync(), family(true), key, value);
    }
    void remove_snapshot_key(const std::string& key) { _db->Delete(sync(), family(true), key); }

    /// The partition index's keys and values (store/journal_index.h), in
    /// key order; empty when the journal has none.
    std::vector<std::pair<std::string, std::string>> index_entries() {
        std::vector<std::pair<std::string, std::string>> out;
        if (_handles.size() < 3) return out;
        std::unique_ptr<rocksdb::Iterator> it(_db->NewIterator(rocksdb::ReadOptions(), _handles[2]));
        for (it->SeekToFirst(); it->Valid(); it->Next()) out.emplace_back(it->key().ToString(), it->value().ToString());
        return out;
    }
    void put_index(const std::string& key, const std::string& value) { _db->Put(sync(), _handles.at(2), key, value); }
    void remove_index(const std::string& key) { _db->Delete(sync(), _handles.at(2), key); }
    /// Drops the index's column family: the journal as a build before the
    /// index wrote it.
    void drop_index() {
        ASSERT_EQ(_handles.size(), 3u) << "the journal has no partition index";
        ASSERT_TRUE(_db->DropColumnFamily(_handles[2]).ok());
        _db->DestroyColumnFamilyHandle(_handles[2]);
        _handles.pop_back();
    }

private:
    /// The run that holds a seq, its records by seq.
    struct Run {
        std::string key;
        std::map<uint64_t, std::string> records;
    };
    Run run_of(uint64_t seq) {
        Run run;
        std::unique_ptr<rocksdb::Iterator> it(_db->NewIterator(rocksdb::ReadOptions(), family(false)));
        it->SeekForPrev(store::run_key(seq, UINT64_MAX));
        if (!it->Valid()) return run;
        uint64_t first = 0;
        uint64_t last = 0;
        if (!store::decode_run_key(it->key().ToStringView(), &first, &last) || last < seq) return run;
        run.key = it->key().ToString();
        const std::string value = it->value().ToString();
        store::RunCursor cursor = store::RunCursor::of(run.key, value);
        while (!cursor.done()) {
            uint64_t at = 0;
            std::string_view record;
            const events::Status framed = cursor.next(&at, &record);
            EXPECT_TRUE(framed.ok()) << framed.error().to_string();
            if (!framed.ok()) break;
            run.records[at] = std::string(record);
        }
        return run;
    }
    /// Writes a run's records back as runs of consecutive seqs.
    void write_back(const Run& run) {
        rocksdb::WriteBatch batch;
        batch.Delete(family(false), run.key);
        store::RunBuilder builder;
        for (const auto& [seq, record] : run.records) {
            if (!builder.empty() && seq != builder.last() + 1) {
                batch.Put(family(false), builder.key(), builder.value());
                builder.clear();
            }
            builder.add_record(seq, record);
        }
        if (!builder.empty()) batch.Put(family(false), builder.key(), builder.value());
        _db->Write(sync(), &batch);
    }
    static rocksdb::WriteOptions sync() {
        rocksdb::WriteOptions options;
        options.sync = true;
        return options;
    }
    rocksdb::ColumnFamilyHandle* family(bool snapshot) { return _handles[snapshot ? 1 : 0]; }

    rocksdb::Status _status;
    std::vector<rocksdb::ColumnFamilyHandle*> _handles;
    std::unique_ptr<rocksdb::DB> _db;
};

}  // namespace ballast::testing
