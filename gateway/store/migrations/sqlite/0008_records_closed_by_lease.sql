-- A record written by closing an in-flight row whose lease ran out charges only what was
-- checkpointed. If its request was only slow, not dead, it finishes later and its own record
-- replaces this one, charging the difference: the flag says which records may be replaced.
-- PostgreSQL's 0003 makes the same change.
ALTER TABLE generations ADD COLUMN closed_by_lease INTEGER NOT NULL DEFAULT 0;
