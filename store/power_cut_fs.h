#pragma once

/// A file system for crash tests that can lose power: it passes everything
/// through to the OS and remembers, for each file written through it, how
/// much of it was synced. `cut()` is the power going off: from then on
/// nothing reaches the disk (writes, syncs, renames and deletes are dropped,
/// as on a machine that stopped). `restore()` is the machine coming back:
/// every file written since the file system was made is cut back to what was
/// synced of it (a file never synced comes back empty), which is what a disk
/// keeps of data that sat in the page cache. Directory entries are taken as
/// durable: RocksDB syncs its directory after creating and renaming the
/// files it depends on.
///
/// The journal takes it through `JournalOptions::env` (see `env()`); the
/// journal crash tests and the fault simulation use it. Thread-safe.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>

#include "events/result.h"

namespace ballast::store {

class PowerCutFileSystem : public rocksdb::FileSystemWrapper,
                           public std::enable_shared_from_this<PowerCutFileSystem> {
public:
    static std::shared_ptr<PowerCutFileSystem> make();

    const char* Name() const override { return "PowerCutFileSystem"; }

    /// The environment to hand to the journal (lives as long as this).
    rocksdb::Env* env();

    /// The power goes off: nothing written from now on reaches the disk.
    void cut();
    bool is_cut() const;
    /// The machine comes back: each file cut back to what was synced of it.
    /// Returns the bytes dropped; fails naming a file it could not cut back.
    /// The power is on again afterwards.
    events::Result<uint64_t> restore();
    /// Bytes written and not yet synced, over all files.
    uint64_t unsynced_bytes() const;

    // rocksdb::FileSystem
    rocksdb::IOStatus NewWritableFile(const std::string& fname, const rocksdb::FileOptions& options,
                                      std::unique_ptr<rocksdb::FSWritableFile>* result,
                                      rocksdb::IODebugContext* dbg) override;
    rocksdb::IOStatus ReopenWritableFile(const std::string& fname, const rocksdb::FileOptions& options,
                                         std::unique_ptr<rocksdb::FSWritableFile>* result,
                                         rocksdb::IODebugContext* dbg) override;
    rocksdb::IOStatus ReuseWritableFile(const std::string& fname, const std::string& old_fname,
                                        const rocksdb::FileOptions& options,
                                        std::unique_ptr<rocksdb::FSWritableFile>* result,
                                        rocksdb::IODebugContext* dbg) override;
    rocksdb::IOStatus DeleteFile(const std::string& fname, const rocksdb::IOOptions& options,
                                 rocksdb::IODebugContext* dbg) override;
    rocksdb::IOStatus RenameFile(const std::string& src, const std::string& target,
                                 const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override;
    rocksdb::IOStatus LinkFile(const std::string& src, const std::string& target,
                               const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override;

    /// What is known of one file (for the file wrapper).
    struct FileState {
        uint64_t size = 0;         // bytes written
        uint64_t synced_size = 0;  // bytes on the disk for sure
    };
    void wrote(const std::string& fname, uint64_t bytes);
    void synced(const std::string& fname);

private:
    PowerCutFileSystem();
    rocksdb::IOStatus wrap(const std::string& fname, rocksdb::IOStatus opened,
                           std::unique_ptr<rocksdb::FSWritableFile>* result, uint64_t size_before);

    mutable std::mutex _mutex;
    bool _cut = false;
    std::map<std::string, FileState> _files;  // by path, every file written through this
    std::unique_ptr<rocksdb::Env> _env;
};

}  // namespace ballast::store
