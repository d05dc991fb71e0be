-- Lakehouse edit

-- Run as the catalog owner or a metastore admin.
DROP SCHEMA `service`.`audit` CASCADE;
