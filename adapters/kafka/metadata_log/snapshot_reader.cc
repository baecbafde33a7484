#include "adapters/kafka/metadata_log/snapshot_reader.h"

namespace ballast::kafka::metadata_log {

std::string SnapshotId::to_string() const {
    return std::to_string(end_offset) + "-" + std::to_string(epoch);
}

Error SnapshotReader::problem(const std::string& what) const {
    return events::make_error(ErrorCode::corruption,
                              "metadata snapshot " + _id.to_string() + ": " + what);
}

Status SnapshotReader::add(int64_t position, int64_t size, Bytes chunk) {
    if (position != _position) {
        return problem("a chunk at byte " + std::to_string(position) + " where byte " +
                       std::to_string(_position) + " was asked");
    }
    if (size > snapshot_size_bytes_max) {
        return problem("a size of " + std::to_string(size) + " bytes, above the most read (" +
                       std::to_string(snapshot_size_bytes_max) + ")");
    }
    if (size < 0 || (_size >= 0 && size != _size)) {
        return problem("a size of " + std::to_string(size) + " bytes" +
                       (_size >= 0 ? " after " + std::to_string(_size) : std::string()));
    }
    _size = size;
    if (static_cast<int64_t>(chunk.size()) > _size - _position) {
        return problem(std::to_string(chunk.size()) + " bytes at byte " +
                       std::to_string(_position) + " run past its " + std::to_string(_size) +
                       " bytes");
    }
    if (chunk.empty() && _position < _size) {
        return problem("an empty chunk at byte " + std::to_string(_position) + " of " +
                       std::to_string(_size));
    }
    _pending.insert(_pending.end(), chunk.begin(), chunk.end());
    _position += static_cast<int64_t>(chunk.size());
    const size_t before = _entries.size();
    Result<size_t> used = _decoder.decode(_pending, _entries);
    if (!used.ok()) return problem(used.error().message);
    _pending.erase(_pending.begin(), _pending.begin() + static_cast<std::ptrdiff_t>(*used));
    for (size_t i = before; i < _entries.size(); ++i) _entries[i].offset = _id.end_offset - 1;
    if (_position == _size && !_pending.empty()) {
        return problem("ends inside a batch: " + std::to_string(_pending.size()) +
                       " bytes left undecoded at its end");
    }
    return Status();
}

}  // namespace ballast::kafka::metadata_log
