-- baton schema, version 14: on SQLite, a tenant's ledger keeps its count.
--
-- Every append trims the tenant's ledger to its newest lines. The trim
-- found its cut by reading the tenant's index from the newest line back to
-- the keep-th (5000 by default): every hook process read that index's
-- pages from disk to learn that nothing or one line was to go. The
-- count is now kept beside the ledger by triggers, in the transaction of
-- the insert or delete that changes it, so the trim deletes the oldest
-- lines past the bound, if any, reading only those. A tenant's count row
-- goes when its last line does (an erase leaves none behind). On Postgres
-- a count row would serialize every append of a tenant on its lock:
-- migration 015 counts there another way.
-- sqlite:begin
CREATE TABLE ledger_sizes (
    tenant TEXT PRIMARY KEY,
    lines  INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO ledger_sizes (tenant, lines) SELECT user_id, count(*) FROM ledger GROUP BY user_id;
CREATE TRIGGER ledger_sizes_insert AFTER INSERT ON ledger BEGIN
    INSERT OR IGNORE INTO ledger_sizes (tenant, lines) VALUES (NEW.user_id, 0);
    UPDATE ledger_sizes SET lines = lines + 1 WHERE tenant = NEW.user_id;
END;
CREATE TRIGGER ledger_sizes_delete AFTER DELETE ON ledger BEGIN
    UPDATE ledger_sizes SET lines = lines - 1 WHERE tenant = OLD.user_id;
    DELETE FROM ledger_sizes WHERE tenant = OLD.user_id AND lines <= 0;
END;
CREATE TRIGGER ledger_sizes_update AFTER UPDATE OF user_id ON ledger WHEN OLD.user_id IS NOT NEW.user_id BEGIN
    UPDATE ledger_sizes SET lines = lines - 1 WHERE tenant = OLD.user_id;
    DELETE FROM ledger_sizes WHERE tenant = OLD.user_id AND lines <= 0;
    INSERT OR IGNORE INTO ledger_sizes (tenant, lines) VALUES (NEW.user_id, 0);
    UPDATE ledger_sizes SET lines = lines + 1 WHERE tenant = NEW.user_id;
END;
-- sqlite:end
