-- Key management: an audit row for every change, and a ledger of every change to a limit.
-- Keys from before the ledger get one opening entry that matches what their balance showed.
CREATE TABLE key_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  key_id TEXT NOT NULL REFERENCES keys(id),
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  changes TEXT NOT NULL,
  note TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX key_events_by_key ON key_events (key_id, id);
CREATE TABLE key_ledger (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  key_id TEXT NOT NULL REFERENCES keys(id),
  entry TEXT NOT NULL,
  recharge_nanos INTEGER NOT NULL,
  credit_nanos INTEGER NOT NULL,
  allocated_nanos INTEGER NOT NULL,
  limit_nanos INTEGER NOT NULL,
  counterpart_id TEXT,
  note TEXT,
  actor TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX key_ledger_by_key ON key_ledger (key_id);
INSERT INTO key_ledger (key_id, entry, recharge_nanos, credit_nanos, allocated_nanos, limit_nanos,
    counterpart_id, note, actor, created_at)
  SELECT id, 'opening', limit_nanos + given, 0, given, limit_nanos, NULL,
    'balance before the ledger', 'system', CAST(strftime('%s', 'now') AS INTEGER)
  FROM (SELECT account.id, account.limit_nanos,
          (SELECT IFNULL(SUM(child.limit_nanos), 0) FROM keys AS child
           WHERE child.parent_id = account.id AND child.kind = 'allocated_child'
             AND child.revoked_at IS NULL) AS given
        FROM keys AS account WHERE account.kind = 'account');
INSERT INTO key_ledger (key_id, entry, recharge_nanos, credit_nanos, allocated_nanos, limit_nanos,
    counterpart_id, note, actor, created_at)
  SELECT id, 'opening', 0, 0, limit_nanos, limit_nanos, parent_id, 'balance before the ledger',
    'system', CAST(strftime('%s', 'now') AS INTEGER)
  FROM keys WHERE kind = 'allocated_child';
