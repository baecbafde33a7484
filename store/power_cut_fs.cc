#include "store/power_cut_fs.h"

#include <filesystem>
#include <system_error>

namespace ballast::store {

namespace {

using rocksdb::IOStatus;

/// A file written through the power-cut file system: passes writes through
/// while the power is on, drops them once it is cut, and reports sizes and
/// syncs to its file system.
class PowerCutFile : public rocksdb::FSWritableFileOwnerWrapper {
public:
    PowerCutFile(std::unique_ptr<rocksdb::FSWritableFile> file, std::string fname, PowerCutFileSystem* fs)
        : FSWritableFileOwnerWrapper(std::move(file)), _fname(std::move(fname)), _fs(fs) {}

    IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                    rocksdb::IODebugContext* dbg) override {
        if (_fs->is_cut()) return IOStatus::OK();
        IOStatus s = target()->Append(data, options, dbg);
        if (s.ok()) _fs->wrote(_fname, data.size());
        return s;
    }
    IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                    const rocksdb::DataVerificationInfo&, rocksdb::IODebugContext* dbg) override {
        return Append(data, options, dbg);
    }
    IOStatus PositionedAppend(const rocksdb::Slice&, uint64_t, const rocksdb::IOOptions&,
                              rocksdb::IODebugContext*) override {
        // Only direct I/O writes this way; the journal never uses it.
        return IOStatus::NotSupported("PowerCutFileSystem: PositionedAppend");
    }
    IOStatus PositionedAppend(const rocksdb::Slice&, uint64_t, const rocksdb::IOOptions&,
                              const rocksdb::DataVerificationInfo&, rocksdb::IODebugContext*) override {
        return IOStatus::NotSupported("PowerCutFileSystem: PositionedAppend");
    }
    IOStatus Truncate(uint64_t size, const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override {
        if (_fs->is_cut()) return IOStatus::OK();
        return target()->Truncate(size, options, dbg);
    }
    IOStatus Flush(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override {
        if (_fs->is_cut()) return IOStatus::OK();
        return target()->Flush(options, dbg);
    }
    IOStatus Sync(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override {
        if (_fs->is_cut()) return IOStatus::OK();
        IOStatus s = target()->Sync(options, dbg);
        if (s.ok()) _fs->synced(_fname);
        return s;
    }
    IOStatus Fsync(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override {
        if (_fs->is_cut()) return IOStatus::OK();
        IOStatus s = target()->Fsync(options, dbg);
        if (s.ok()) _fs->synced(_fname);
        return s;
    }
    IOStatus RangeSync(uint64_t, uint64_t, const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
        // A hint to start writeback, not a promise: nothing counts as synced.
        return IOStatus::OK();
    }
    IOStatus Close(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override {
        // Closing syncs nothing; the OS still writes the bytes out later,
        // unless the power goes first.
        return target()->Close(options, dbg);
    }

private:
    std::string _fname;
    PowerCutFileSystem* _fs;
};

}  // namespace

std::shared_ptr<PowerCutFileSystem> PowerCutFileSystem::make() {
    return std::shared_ptr<PowerCutFileSystem>(new PowerCutFileSystem());
}

PowerCutFileSystem::PowerCutFileSystem() : FileSystemWrapper(rocksdb::FileSystem::Default()) {}

rocksdb::Env* PowerCutFileSystem::env() {
    std::lock_guard<std::mutex> lock(_mutex);
    if (!_env) _env = rocksdb::NewCompositeEnv(shared_from_this());
    return _env.get();
}

void PowerCutFileSystem::cut() {
    std::lock_guard<std::mutex> lock(_mutex);
    _cut = true;
}

bool PowerCutFileSystem::is_cut() const {
    std::lock_guard<std::mutex> lock(_mutex);
    return _cut;
}

uint64_t PowerCutFileSystem::unsynced_bytes() const {
    std::lock_guard<std::mutex> lock(_mutex);
    uint64_t total = 0;
    for (const auto& [name, file] : _files) total += file.size - file.synced_size;
    return total;
}

events::Result<uint64_t> PowerCutFileSystem::restore() {
    std::lock_guard<std::mutex> lock(_mutex);
    uint64_t dropped = 0;
    for (auto& [name, file] : _files) {
        std::error_code error;
        const uint64_t on_disk = std::filesystem::file_size(name, error);
        if (error) continue;  // deleted before the cut
        if (on_disk > file.synced_size) {
            std::filesystem::resize_file(name, file.synced_size, error);
            if (error) {
                return events::make_error(events::ErrorCode::io_error,
                                          "power cut: cannot cut " + name + " back to its synced " +
                                              std::to_string(file.synced_size) + " bytes: " + error.message());
            }
            dropped += on_disk - file.synced_size;
        }
        file.size = file.synced_size;
    }
    _cut = false;
    return dropped;
}

void PowerCutFileSystem::wrote(const std::string& fname, uint64_t bytes) {
    std::lock_guard<std::mutex> lock(_mutex);
    _files[fname].size += bytes;
}

void PowerCutFileSystem::synced(const std::string& fname) {
    std::lock_guard<std::mutex> lock(_mutex);
    FileState& file = _files[fname];
    file.synced_size = file.size;
}

IOStatus PowerCutFileSystem::wrap(const std::string& fname, IOStatus opened,
                                  std::unique_ptr<rocksdb::FSWritableFile>* result, uint64_t size_before) {
    if (!opened.ok()) return opened;
    {
        std::lock_guard<std::mutex> lock(_mutex);
        FileState& file = _files[fname];
        file.size = size_before;
        file.synced_size = std::min(file.synced_size, size_before);
    }
    *result = std::make_unique<PowerCutFile>(std::move(*result), fname, this);
    return opened;
}

IOStatus PowerCutFileSystem::NewWritableFile(const std::string& fname, const rocksdb::FileOptions& options,
                                             std::unique_ptr<rocksdb::FSWritableFile>* result,
                                             rocksdb::IODebugContext* dbg) {
    if (is_cut()) return IOStatus::IOError("PowerCutFileSystem: the power is off");
    // A new file replaces any old one: nothing of it is synced yet.
    {
        std::lock_guard<std::mutex> lock(_mutex);
        _files[fname] = FileState{};
    }
    return wrap(fname, target()->NewWritableFile(fname, options, result, dbg), result, 0);
}

IOStatus PowerCutFileSystem::ReopenWritableFile(const std::string& fname, const rocksdb::FileOptions& options,
                                                std::unique_ptr<rocksdb::FSWritableFile>* result,
                                                rocksdb::IODebugContext* dbg) {
    if (is_cut()) return IOStatus::IOError("PowerCutFileSystem: the power is off");
    std::error_code error;
    const uint64_t size = std::filesystem::exists(fname, error) ? std::filesystem::file_size(fname, error) : 0;
    {
        // What was there before this file system saw it is on the disk.
        std::lock_guard<std::mutex> lock(_mutex);
        if (!_files.count(fname)) _files[fname] = FileState{size, size};
    }
    return wrap(fname, target()->ReopenWritableFile(fname, options, result, dbg), result, size);
}

IOStatus PowerCutFileSystem::ReuseWritableFile(const std::string& fname, const std::string& old_fname,
                                               const rocksdb::FileOptions& options,
                                               std::unique_ptr<rocksdb::FSWritableFile>* result,
                                               rocksdb::IODebugContext* dbg) {
    if (is_cut()) return IOStatus::IOError("PowerCutFileSystem: the power is off");
    {
        std::lock_guard<std::mutex> lock(_mutex);
        _files.erase(old_fname);
        _files[fname] = FileState{};
    }
    return wrap(fname, target()->ReuseWritableFile(fname, old_fname, options, result, dbg), result, 0);
}

IOStatus PowerCutFileSystem::DeleteFile(const std::string& fname, const rocksdb::IOOptions& options,
                                        rocksdb::IODebugContext* dbg) {
    if (is_cut()) return IOStatus::OK();
    IOStatus s = target()->DeleteFile(fname, options, dbg);
    if (s.ok()) {
        std::lock_guard<std::mutex> lock(_mutex);
        _files.erase(fname);
    }
    return s;
}

IOStatus PowerCutFileSystem::RenameFile(const std::string& src, const std::string& target_name,
                                        const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) {
    if (is_cut()) return IOStatus::OK();
    IOStatus s = target()->RenameFile(src, target_name, options, dbg);
    if (s.ok()) {
        std::lock_guard<std::mutex> lock(_mutex);
        auto it = _files.find(src);
        if (it != _files.end()) {
            _files[target_name] = it->second;
            _files.erase(src);
        } else {
            _files.erase(target_name);  // replaced by a file from before: on the disk
        }
    }
    return s;
}

IOStatus PowerCutFileSystem::LinkFile(const std::string& src, const std::string& target_name,
                                      const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) {
    if (is_cut()) return IOStatus::OK();
    IOStatus s = target()->LinkFile(src, target_name, options, dbg);
    if (s.ok()) {
        std::lock_guard<std::mutex> lock(_mutex);
        auto it = _files.find(src);
        if (it != _files.end()) _files[target_name] = it->second;
    }
    return s;
}

}  // namespace ballast::store
